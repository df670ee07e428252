import type { Knex } from '@mf/db';
import type { SafeFetchPolicy } from '@mf/safe-fetch';
import type { WebhookPoster } from '../delivery/webhook-poster';
import type { SecretBox } from '../domain/secret-box';

/** What the endpoint RPC use cases need, passed in. */
export interface EndpointsContext {
  db: Knex;
  secrets: SecretBox;
  /** Which URLs may be saved (the same policy the deliveries connect under). */
  urlPolicy: SafeFetchPolicy;
  /** Posts the test event (the same guarded poster the deliveries use). */
  post: WebhookPoster;
  /** Epoch ms: the test event's signature timestamp and duration. */
  now: () => number;
}
