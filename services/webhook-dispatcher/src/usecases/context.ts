import type { SafeFetchPolicy } from '@mf/safe-fetch';
import type { SecretBox } from '../domain/secret-box';
import type { KeyedLock } from './keyed-lock';
import type { AttemptDeps } from './send-attempt';

/**
 * What the endpoint RPC use cases need, passed in: the attempt parts (the same guarded poster the
 * deliveries use, the clock) for tests and resends, and the URL policy for saves.
 */
export interface EndpointsContext extends AttemptDeps {
  secrets: SecretBox;
  /** Which URLs may be saved (the same policy the deliveries connect under). */
  urlPolicy: SafeFetchPolicy;
  /** Serialises the attempts of one event to one key within this replica (shared with the job event consumer). */
  lock: KeyedLock;
  /** Tells the delivery lanes that attempts were queued (recover), so they are claimed now. */
  wakeLanes: () => void;
}
