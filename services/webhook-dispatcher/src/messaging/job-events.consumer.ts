import { jobEndsConsumer, type Bus } from '@mf/bus';
import { QUEUES } from '@mf/contracts';
import { deliverJobEvent, type DeliveryDeps } from '../usecases/deliver-job-event.usecase';

export interface JobEventsConsumerOptions {
  prefetch: number;
  /** The broker-held retry schedule: attempt n+1 waits retryDelaysMs[n-1]; then the DLQ. */
  retryDelaysMs: number[];
}

/** Consumes the terminal job events (webhooks are sent for those only) and delivers them to the key's webhook. */
export function consumeJobEvents(bus: Bus, deps: DeliveryDeps, opts: JobEventsConsumerOptions): Promise<void> {
  return bus.consume(
    jobEndsConsumer({
      queue: QUEUES.webhooksJobEvents,
      handle: (payload, ctx, event) =>
        deliverJobEvent(deps, {
          event,
          // The event log's id names the event everywhere (webhooks, streams, GET /events); an event
          // relayed before the log had ids has only its message id. Both are fixed per outbox row, so
          // every copy and attempt of one event carries the same id.
          eventId: payload.event_id ?? ctx.envelope.messageId,
          attempt: ctx.attempt,
          payload,
        }),
      prefetch: opts.prefetch,
      retryDelaysMs: opts.retryDelaysMs,
    }),
  );
}
