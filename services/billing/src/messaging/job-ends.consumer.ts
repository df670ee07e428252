import { jobEndsConsumer, type Bus } from '@mf/bus';
import { QUEUES } from '@mf/contracts';
import type { GroupCommitter } from '../usecases/group-commit';

/**
 * A job's end (completed, failed, cancelled) frees its slot under its key's concurrent-jobs limit.
 * The release goes through the group committer, in order with the key's charges; it happens once
 * per job, so a redelivered event changes nothing.
 */
export function consumeJobEnds(bus: Bus, committer: GroupCommitter, prefetch: number): Promise<void> {
  return bus.consume(
    jobEndsConsumer({
      queue: QUEUES.billingJobEnds,
      handle: async (payload, ctx) => {
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
      },
      prefetch,
      retryDelaysMs: [1_000, 10_000, 60_000],
    }),
  );
}
