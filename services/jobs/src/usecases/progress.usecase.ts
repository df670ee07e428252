import { ROUTING_KEYS } from '@mf/contracts';
import { rawRowsOf } from '@mf/db';
import { currentAttempt, toEventPayload, type JobRow } from '../domain/job';
import { setAttemptProgress } from '../repositories/attempts.repository';
import { addToOutbox } from '../repositories/outbox.repository';
import type { JobsContext } from './context';

/** Progress events of one job: at most one in this many ms. */
export const PROGRESS_EVENT_INTERVAL_MS = 1000;

/** A provider's 0..1 as the Job's integer percent; never 100 before the job completes. */
export function percentOf(progress: number | undefined): number | null {
  if (progress === undefined || !Number.isFinite(progress)) return null;
  return Math.max(0, Math.min(99, Math.floor(progress * 100)));
}

/**
 * Records what the provider says of a running attempt. When the percent or the queue position
 * changed, the job row takes it and, unless this job had a progress event less than a second ago,
 * a job.progress event is written in the same transaction. Returns whether an event was written.
 */
export async function reportProgress(
  ctx: JobsContext,
  job: JobRow,
  said: { progress?: number; queuePosition?: number },
): Promise<boolean> {
  const n = currentAttempt(job);
  if (said.progress !== undefined) await setAttemptProgress(ctx.db, job.id, n, said.progress);
  const percent = percentOf(said.progress);
  const position = said.queuePosition ?? null;
  if (percent === null && position === null) return false;
  const emitted = await ctx.db.transaction(async (trx) => {
    // now() is the transaction's start: progress_event_at = now() afterwards means this update set it.
    const [row] = await rawRowsOf<JobRow & { emitted: boolean }>(
      trx.raw(
        `UPDATE jobs SET progress = ?, queue_position = ?,
           progress_event_at = CASE WHEN progress_event_at IS NULL OR progress_event_at <= now() - (? * interval '1 millisecond')
                                    THEN now() ELSE progress_event_at END
         WHERE id = ? AND status = 'processing' AND attempt = ?
           AND (progress IS DISTINCT FROM ? OR queue_position IS DISTINCT FROM ?)
         RETURNING *, (progress_event_at = now()) AS emitted`,
        [percent, position, PROGRESS_EVENT_INTERVAL_MS, job.id, job.attempt, percent, position],
      ),
    );
    if (!row?.emitted) return false;
    const { emitted: _, ...updated } = row;
    await addToOutbox(trx, ROUTING_KEYS.jobProgress, toEventPayload(updated, ctx.settings.publicBaseUrl));
    return true;
  });
  if (emitted) ctx.kickRelay();
  return emitted;
}
