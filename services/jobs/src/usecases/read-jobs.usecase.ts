import type { JobRef, JobView } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { toView, verifyCallbackToken } from '../domain/job';
import { findVisibleJob, pollNow } from '../repositories/jobs.repository';
import type { JobsContext } from './context';

export const JOB_NOT_FOUND = 'Job not found';

/** A job of this user; another user's job is as absent as a missing one. */
export async function getJob(ctx: JobsContext, ref: JobRef): Promise<JobView> {
  const row = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!row) throw AppError.notFound(JOB_NOT_FOUND);
  return toView(row, ctx.settings.publicBaseUrl);
}

/** An upstream provider says a job changed: poll it now. The call itself proves nothing else. */
export async function providerCallback(ctx: JobsContext, jobId: string, token: string, wake: () => void): Promise<{ accepted: boolean }> {
  if (!verifyCallbackToken(ctx.settings.callbackSecret, jobId, token)) return { accepted: false };
  const accepted = await pollNow(ctx.db, jobId);
  if (accepted) wake();
  return { accepted };
}
