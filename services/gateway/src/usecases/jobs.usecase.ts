import type { Bus } from '@mf/bus';
import { jobsRpc, type CancelJobReply, type JobRef, type JobView } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { AuthContext } from '../http/auth.middleware';

/** The shape of a job id; anything else cannot exist. */
export const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;
export const JOB_NOT_FOUND = 'Job not found';

export interface JobCallOptions {
  correlationId?: string;
}

/** Any key may read its owner's jobs; another user's job is the same 404 as a missing one (in jobs). */
function jobRef(auth: AuthContext, raw: unknown): JobRef {
  // An id that cannot exist is a 404 without asking anyone (and never reaches a query).
  if (typeof raw !== 'string' || !JOB_ID.test(raw)) throw AppError.notFound(JOB_NOT_FOUND);
  return { user_id: auth.userId, job_id: raw };
}

/** The contract's Job object of one of the caller's jobs. */
export async function getJob(bus: Bus, auth: AuthContext, jobId: unknown, opts: JobCallOptions = {}): Promise<JobView> {
  return bus.rpc(jobsRpc, 'get', jobRef(auth, jobId), opts);
}

/** Cancels a processing job with a full refund (409 once it has finished). */
export async function cancelJob(bus: Bus, auth: AuthContext, jobId: unknown, opts: JobCallOptions = {}): Promise<CancelJobReply> {
  return bus.rpc(jobsRpc, 'cancel', jobRef(auth, jobId), opts);
}
