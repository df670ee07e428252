import { jobEndsConsumer, type Bus } from '@mf/bus';
import { QUEUES } from '@mf/contracts';
import { acceptJobEvent, type AcceptDeps } from '../usecases/accept-job-event.usecase';

export interface JobEventsConsumerOptions {
  /** Job events taken off the broker at once (each is only written to its endpoint's lane). */
  prefetch: number;
  /** The broker-held retry schedule: attempt n+1 waits retryDelaysMs[n-1]; then the DLQ. */
  retryDelaysMs: number[];
}

/**
 * Consumes the terminal job events (webhooks are sent for those only), and their retries coming
 * back from the delay queues, into the endpoints' delivery lanes.
 */
export function consumeJobEvents(bus: Bus, deps: AcceptDeps, opts: JobEventsConsumerOptions): Promise<void> {
  return bus.consume(
    jobEndsConsumer({
      queue: QUEUES.webhooksJobEvents,
      handle: (payload, ctx) =>
        acceptJobEvent(deps, {
          payload,
          // The event log's id names the event everywhere (webhooks, streams, GET /events); an event
          // relayed before the log had ids has only its message id. Both are fixed per outbox row, so
          // every copy and attempt of one event carries the same id.
          eventId: payload.event_id ?? ctx.envelope.messageId,
          attempt: ctx.attempt,
          message: ctx.message,
        }),
      prefetch: opts.prefetch,
      // Declares the delay queues; the lanes hand failed attempts to them (Bus.retryLater).
      retryDelaysMs: opts.retryDelaysMs,
    }),
  );
}
