import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { Storage } from '@mf/storage';
import type { Provider } from '../providers/provider';

/** Everything the jobs use cases need, passed in (so tests can give fakes). */
export interface JobsContext {
  db: Knex;
  bus: Bus;
  provider: Provider;
  storage: Storage;
  logger: Logger;
  falEndpoints: FalEndpoints;
  settings: {
    publicBaseUrl: string;
    jobTimeoutMs: number;
    pollIntervalMs: number;
    callbackSecret: string;
    /** Provider callback URLs are given to upstream providers only (the local one needs none). */
    providerCallbacks: boolean;
  };
  /** Checks a user-supplied reference URL before we charge for it (throws when unsafe). */
  assertReferenceUrl: (url: string) => Promise<void>;
  /** Copies a provider's output URL into a local file (size and time limited). */
  downloadResult: (url: string, destPath: string) => Promise<void>;
  /** Wakes the outbox relay after a commit that wrote an event. */
  kickRelay: () => void;
  /** Test-only fault injection: kills the process at a named point when configured. */
  faultPoint: (name: string) => void;
}
