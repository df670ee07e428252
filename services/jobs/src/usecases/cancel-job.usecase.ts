import type { CancelJobReply, CancelJobRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { findVisibleJob } from '../repositories/jobs.repository';
import type { JobsContext } from './context';
import { JOB_NOT_FOUND } from './read-jobs.usecase';
import { giveUpAttempt } from './attempts.usecase';
import { cancelProcessingJob } from './transitions';

export const ALREADY_FINISHED = (status: string): string => `Job is already ${status} and cannot be cancelled`;

/**
 * Cancels a processing job: full refund, job.cancelled event, best-effort cancel of its current attempt upstream.
 * A cancel racing the job's completion ends in exactly one of the two (compare-and-set on status).
 */
export async function cancelJob(ctx: JobsContext, ref: CancelJobRequest): Promise<CancelJobReply> {
  const job = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!job) throw AppError.notFound(JOB_NOT_FOUND);
  if (job.status !== 'processing') throw AppError.conflict(ALREADY_FINISHED(job.status));
  const cancelled = await cancelProcessingJob(ctx, job, ref.cancelled_by ?? 'user');
  if (!cancelled) {
    const now = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
    throw AppError.conflict(ALREADY_FINISHED(now?.status ?? 'finished'));
  }
  // The cancelled row names the attempt current at the cancel; an attempt being submitted right now
  // finds the job cancelled and undoes itself upstream.
  giveUpAttempt(ctx, cancelled, 'cancelled', null).catch((err: Error) =>
    ctx.logger.warn({ err: err.message, jobId: job.id }, 'upstream cancel failed'),
  );
  // The refund is owed in full whatever billing's latency: it is recorded and retried until done.
  return { job_id: job.id, status: 'cancelled', refunded_credits: job.cost };
}
