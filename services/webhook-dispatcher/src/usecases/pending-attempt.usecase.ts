import type { HeldMessage } from '@mf/bus';
import type { Envelope, JobEndEvent, JobEventPayload } from '@mf/contracts';
import type { LaneResult } from '../lanes/delivery-lanes';
import type { PendingAttempt } from '../repositories/pending-attempts.repository';
import type { EndpointsContext } from './context';
import { deliverJobEvent, type DeliveryDeps } from './deliver-job-event.usecase';
import { sendQueuedResend } from './delivery-tools.usecase';

/** Where a job event goes after a failed attempt: the broker holds its retry schedule. */
export interface RetrySchedule {
  /** The delay queue of its next attempt, or its dead-letter queue once the delays are exhausted. */
  retryLater: (held: HeldMessage) => Promise<'scheduled' | 'dead-lettered'>;
  deadLetter: (held: HeldMessage) => Promise<void>;
}

export interface PendingAttemptDeps {
  delivery: DeliveryDeps;
  tools: EndpointsContext;
  retries: RetrySchedule;
}

/** A retry that could not be handed to the broker is tried again after this (the attempt is made again). */
const BROKER_AWAY_PAUSE_MS = 5000;

/**
 * Makes one attempt a lane worker claimed. A job event is delivered as its consumer did (records
 * the attempt, then either done, or handed to the broker for its retry after the schedule's delay
 * or to the dead-letter queue); a recovered resend is sent once, never retried.
 */
export async function runPendingAttempt(deps: PendingAttemptDeps, item: PendingAttempt): Promise<LaneResult> {
  if (item.kind === 'resend') {
    if (item.delivery_id === null) return { done: 'skipped' };
    const ref = { api_key_id: item.api_key_id, user_id: item.user_id, delivery_id: item.delivery_id };
    return { done: await sendQueuedResend(deps.tools, ref) };
  }
  const held = item.message;
  if (!held) return { done: 'skipped' };
  const { payload } = JSON.parse(held.content) as Envelope<JobEventPayload>;
  const outcome = await deliverJobEvent(deps.delivery, {
    event: held.routingKey as JobEndEvent,
    eventId: item.event_id,
    attempt: item.attempt,
    payload,
  });
  try {
    if (outcome === 'retry') {
      const next = await deps.retries.retryLater(held);
      if (next === 'dead-lettered')
        deps.delivery.logger.warn({ eventId: item.event_id, attempt: item.attempt }, 'webhook retries exhausted');
      return { done: next };
    }
    if (outcome === 'dead') {
      await deps.retries.deadLetter(held);
      return { done: 'dead-lettered' };
    }
  } catch (err) {
    // Back in the lane shortly: the next try numbers its attempt after the one just recorded.
    return { retryInMs: BROKER_AWAY_PAUSE_MS, why: `retry not scheduled: ${(err as Error).message}` };
  }
  return { done: 'ack' };
}
