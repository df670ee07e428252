import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { Storage } from '@mf/storage';
import type { Routing } from '../routing/routing';

/** Everything the jobs use cases need, passed in (so tests can give fakes). */
export interface JobsContext {
  db: Knex;
  bus: Bus;
  /** The providers, each model's routes, their circuit breakers and metrics. */
  routing: Routing;
  storage: Storage;
  logger: Logger;
  settings: {
    publicBaseUrl: string;
    jobTimeoutMs: number;
    pollIntervalMs: number;
    callbackSecret: string;
    /**
     * How long a submit keeps trying routes before it answers 202 and leaves the rest to the
     * poller (ms): a client never waits for every dead upstream's timeout in turn.
     */
    submitBudgetMs: number;
    /** An attempt left "submitting" this long was interrupted (a crash mid-submit), ms. */
    submitStaleAfterMs: number;
  };
  /** Checks a user-supplied reference URL before we charge for it (throws when unsafe). */
  assertReferenceUrl: (url: string) => Promise<void>;
  /**
   * Downloads a provider's output URL (size and time limited), handing the body to `write` as it
   * arrives; the body fails (so the write) when the download does.
   */
  downloadResult: <T>(url: string, write: (body: NodeJS.ReadableStream) => Promise<T>) => Promise<T>;
  /** Wakes the outbox relay after a commit that wrote an event. */
  kickRelay: () => void;
}
