import type { HandlerOutcome, HeldMessage } from '@mf/bus';
import type { JobEventPayload } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { queueEventAttempt } from '../repositories/pending-attempts.repository';

export interface AcceptDeps {
  db: Knex;
  /** Tells the delivery lanes an attempt was queued. */
  wakeLanes: () => void;
}

export interface JobEventArrival {
  payload: JobEventPayload;
  /** The event log's id (the message id for an event relayed before the log had ids). */
  eventId: string;
  /** The bus's attempt number: 1, then one more per broker-held retry. */
  attempt: number;
  message: HeldMessage;
}

/**
 * Takes a job event off the broker into its endpoint's lane (the attempt waits in the database
 * until a lane worker makes it), then acks: the consumer never waits for a receiver, so one slow
 * endpoint cannot fill the prefetch that every other endpoint's events arrive through. Nothing is
 * queued for a key without an enabled webhook, nor for an event already delivered.
 */
export async function acceptJobEvent(deps: AcceptDeps, arrival: JobEventArrival): Promise<HandlerOutcome> {
  const { payload } = arrival;
  // A playground job of the dashboard session has no key, hence no webhook.
  if (payload.api_key_id === null) return 'ack';
  const queued = await queueEventAttempt(deps.db, {
    apiKeyId: payload.api_key_id,
    userId: payload.user_id,
    eventId: arrival.eventId,
    attempt: arrival.attempt,
    message: arrival.message,
  });
  if (queued) deps.wakeLanes();
  return 'ack';
}
