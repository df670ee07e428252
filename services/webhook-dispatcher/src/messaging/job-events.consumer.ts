import { eventHandler, type Bus } from '@mf/bus';
import {
  JOB_END_ROUTING_KEYS,
  jobEvents,
  QUEUES,
  ROUTING_KEYS,
  type EventDef,
  type JobEventPayload,
} from '@mf/contracts';
import type { WebhookEvent } from '../domain/webhook-request';
import { deliverJobEvent, type DeliveryDeps } from '../usecases/deliver-job-event.usecase';

export interface JobEventsConsumerOptions {
  prefetch: number;
  /** The broker-held retry schedule: attempt n+1 waits retryDelaysMs[n-1]; then the DLQ. */
  retryDelaysMs: number[];
}

/** Consumes the terminal job events and delivers them to the key's webhook. */
export function consumeJobEvents(bus: Bus, deps: DeliveryDeps, opts: JobEventsConsumerOptions): Promise<void> {
  const handler = (def: EventDef<JobEventPayload>) =>
    eventHandler(def, (payload, ctx) =>
      deliverJobEvent(deps, {
        event: def.routingKey as WebhookEvent,
        // The event log's id names the event everywhere (webhooks, streams, GET /events); an event
        // relayed before the log had ids has only its message id. Both are fixed per outbox row, so
        // every copy and attempt of one event carries the same id.
        eventId: payload.event_id ?? ctx.envelope.messageId,
        attempt: ctx.attempt,
        payload,
      }),
    );
  return bus.consume({
    queue: QUEUES.webhooksJobEvents,
    // The ends only; the binding to every job event an earlier version made is removed.
    bindings: [...JOB_END_ROUTING_KEYS],
    unbind: [ROUTING_KEYS.jobAll],
    handlers: {
      [jobEvents.completed.routingKey]: handler(jobEvents.completed),
      [jobEvents.failed.routingKey]: handler(jobEvents.failed),
      [jobEvents.cancelled.routingKey]: handler(jobEvents.cancelled),
      // Streams and the event log only (webhooks are sent for the terminal events): no longer routed
      // here; one still queued from before the binding changed is acked.
      [jobEvents.processing.routingKey]: eventHandler(jobEvents.processing, () => Promise.resolve('ack' as const)),
      [jobEvents.progress.routingKey]: eventHandler(jobEvents.progress, () => Promise.resolve('ack' as const)),
    },
    prefetch: opts.prefetch,
    retryDelaysMs: opts.retryDelaysMs,
  });
}
