import { eventHandler, type Bus } from '@mf/bus';
import {
  JOB_END_ROUTING_KEYS,
  jobEvents,
  QUEUES,
  ROUTING_KEYS,
  type EventDef,
  type JobEventPayload,
} from '@mf/contracts';
import type { GroupCommitter } from '../usecases/group-commit';

/**
 * A job's end (completed, failed, cancelled) frees its slot under its key's concurrent-jobs limit.
 * The release goes through the group committer, in order with the key's charges; it happens once
 * per job, so a redelivered event changes nothing.
 */
export function consumeJobEnds(bus: Bus, committer: GroupCommitter, prefetch: number): Promise<void> {
  const handler = (def: EventDef<JobEventPayload>) =>
    eventHandler(def, async (payload, ctx) => {
      if (payload.api_key_id === null) return 'ack';
      try {
        const outcome = await committer.submit({
          kind: 'release',
          req: { user_id: payload.user_id, reference: `job:${payload.job_id}` },
        });
        return outcome.ok ? 'ack' : 'dead';
      } catch (err) {
        ctx.logger.warn({ err: (err as Error).message, jobId: payload.job_id }, 'job end not recorded; retrying');
        return 'retry';
      }
    });
  return bus.consume({
    queue: QUEUES.billingJobEnds,
    // The ends only; the binding to every job event an earlier version made is removed.
    bindings: [...JOB_END_ROUTING_KEYS],
    unbind: [ROUTING_KEYS.jobAll],
    handlers: {
      [jobEvents.completed.routingKey]: handler(jobEvents.completed),
      [jobEvents.failed.routingKey]: handler(jobEvents.failed),
      [jobEvents.cancelled.routingKey]: handler(jobEvents.cancelled),
      // Not ends: no longer routed here; one still queued from before the binding changed is acked.
      [jobEvents.processing.routingKey]: eventHandler(jobEvents.processing, () => Promise.resolve('ack' as const)),
      [jobEvents.progress.routingKey]: eventHandler(jobEvents.progress, () => Promise.resolve('ack' as const)),
    },
    prefetch,
    retryDelaysMs: [1_000, 10_000, 60_000],
  });
}
