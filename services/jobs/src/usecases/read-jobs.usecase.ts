import type { JobRef, JobResultReply, JobStatus, JobView, ListJobsReply, ListJobsRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { toView, verifyCallbackToken } from '../domain/job';
import { findVisibleJob, listVisibleJobs, pollNow } from '../repositories/jobs.repository';
import type { JobsContext } from './context';

export const JOB_NOT_FOUND = 'Job not found';

/** A job of this user; another user's job is as absent as a missing one. */
export async function getJob(ctx: JobsContext, ref: JobRef): Promise<JobView> {
  const row = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!row) throw AppError.notFound(JOB_NOT_FOUND);
  return toView(row, ctx.settings.publicBaseUrl);
}

export const DEFAULT_LIST_LIMIT = 50;

/**
 * A page of the user's jobs, newest first, each with the key it was submitted with. A `before`
 * that is not one of the user's jobs (another user's, or deleted by retention) ends the list.
 */
export async function listJobs(ctx: JobsContext, req: ListJobsRequest): Promise<ListJobsReply> {
  if (req.before !== undefined && !(await findVisibleJob(ctx.db, req.user_id, req.before))) return { jobs: [] };
  const rows = await listVisibleJobs(ctx.db, req.user_id, req.limit ?? DEFAULT_LIST_LIMIT, req.before);
  return { jobs: rows.map((row) => ({ ...toView(row, ctx.settings.publicBaseUrl), api_key_id: row.api_key_id })) };
}

/** A job's outputs as storage keys, for services that build on them (the editor's assets). */
export async function getJobResult(ctx: JobsContext, ref: JobRef): Promise<JobResultReply> {
  const row = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!row) throw AppError.notFound(JOB_NOT_FOUND);
  return {
    job_id: row.id,
    status: row.status as JobStatus,
    type: row.type,
    result_keys: row.status === 'completed' ? (row.result_keys ?? []) : [],
    error: row.status === 'failed' ? row.error : null,
    credits_consumed: row.cost,
  };
}

/** An upstream provider says a job changed: poll it now. The call itself proves nothing else. */
export async function providerCallback(ctx: JobsContext, jobId: string, token: string, wake: () => void): Promise<{ accepted: boolean }> {
  if (!verifyCallbackToken(ctx.settings.callbackSecret, jobId, token)) return { accepted: false };
  const accepted = await pollNow(ctx.db, jobId);
  if (accepted) wake();
  return { accepted };
}
