import type { Bus } from '@mf/bus';
import {
  JOB_ID,
  jobsRpc,
  providerCallbackReceived,
  type CancelJobReply,
  type Job,
  type JobAttemptsReply,
  type JobRef,
  type JobsPage,
  type ListJobsReply,
  type ProviderCallbackRequest,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { scopeOf } from '../../operations/table';
import { assertScope, type AuthContext } from '../auth/auth-context';
import { validateListJobsQuery } from '../validation/jobs-list.validators';
import { valid } from './validated';
import { JOB_NOT_FOUND, JobReads } from './job-reads';

/** Listing jobs needs jobs:read (reading one by its id needs no scope: the id is the capability). */

/** The shape of a job id (the contracts' one); anything else cannot exist. */
export { JOB_ID };
export { JOB_NOT_FOUND };

export interface JobCallOptions {
  correlationId?: string;
}

/** A user may read their own jobs; another user's job is the same 404 as a missing one (in jobs). */
function jobRef(userId: number, raw: unknown): JobRef {
  // An id that cannot exist is a 404 without asking anyone (and never reaches a query).
  if (typeof raw !== 'string' || !JOB_ID.test(raw)) throw AppError.notFound(JOB_NOT_FOUND);
  return { user_id: userId, job_id: raw };
}

/** One JobReads per bus (per process): reads made together from any route share its batches. */
const jobReads = new WeakMap<Bus, JobReads>();

function readsOf(bus: Bus): JobReads {
  let reads = jobReads.get(bus);
  if (!reads) jobReads.set(bus, (reads = new JobReads(bus)));
  return reads;
}

/** The contract's Job object of one of the user's jobs (the dashboard: the signed-in user). */
export async function getJobOf(bus: Bus, userId: number, jobId: unknown, opts: JobCallOptions = {}): Promise<Job> {
  return readsOf(bus).read(jobRef(userId, jobId), opts);
}

/** The job's attempts on its provider routes, for the dashboard (the API's Job object does not show them). */
export async function jobAttemptsOf(
  bus: Bus,
  userId: number,
  jobId: unknown,
  opts: JobCallOptions = {},
): Promise<JobAttemptsReply> {
  return bus.rpc(jobsRpc, 'attempts', jobRef(userId, jobId), opts);
}

/** Cancels a processing job of the user with a full refund (409 once it has finished). */
export async function cancelJobOf(
  bus: Bus,
  userId: number,
  jobId: unknown,
  opts: JobCallOptions = {},
): Promise<CancelJobReply> {
  return bus.rpc(jobsRpc, 'cancel', jobRef(userId, jobId), opts);
}

/** Any key of the owner may read a job, no scope needed: the id is the capability. */
export const getJob = (bus: Bus, auth: AuthContext, jobId: unknown, opts: JobCallOptions = {}): Promise<Job> =>
  getJobOf(bus, auth.userId, jobId, opts);
export const cancelJob = (
  bus: Bus,
  auth: AuthContext,
  jobId: unknown,
  opts: JobCallOptions = {},
): Promise<CancelJobReply> => cancelJobOf(bus, auth.userId, jobId, opts);

/** The dashboard's page of a user's jobs: each with the key that made it, newest first. */
export function listJobsOf(
  bus: Bus,
  userId: number,
  page: { limit?: number; before?: string },
  opts: JobCallOptions = {},
): Promise<ListJobsReply> {
  return bus.rpc(
    jobsRpc,
    'list',
    { user_id: userId, ...(page.limit ? { limit: page.limit } : {}), ...(page.before ? { before: page.before } : {}) },
    opts,
  );
}

/**
 * Asks jobs to poll a job now: an upstream provider called back. The payload is not trusted; a
 * signed one goes along raw (with its signature headers) for jobs to verify. Handed over as a
 * persistent message on jobs' callback queue, resolved once the broker has confirmed it: no reply
 * is awaited, and the message waits for jobs however long jobs is busy or away. Throws (503) when
 * the broker did not take it, so the upstream calls back again.
 */
export async function nudgeJob(
  bus: Bus,
  callback: { jobId: string; token: string; attempt?: number; webhook?: ProviderCallbackRequest['webhook'] },
): Promise<void> {
  if (!JOB_ID.test(callback.jobId) || !callback.token) return;
  const req: ProviderCallbackRequest = {
    job_id: callback.jobId,
    token: callback.token,
    ...(callback.attempt ? { attempt: callback.attempt } : {}),
    ...(callback.webhook ? { webhook: callback.webhook } : {}),
  };
  await bus.publishEvent(providerCallbackReceived, req);
}

/**
 * The caller's jobs, newest first, filtered by status, model and type; `starting_after` is the
 * last job_id of the previous page. Jobs of every key of the owner, editor and playground jobs
 * included (their `source` says which).
 */
export async function listJobs(
  bus: Bus,
  auth: AuthContext,
  query: Record<string, unknown>,
  opts: JobCallOptions = {},
): Promise<JobsPage> {
  assertScope(auth, scopeOf('listJobs'));
  const q = valid(validateListJobsQuery(query));
  const reply = await bus.rpc(
    jobsRpc,
    'list',
    {
      user_id: auth.userId,
      limit: q.limit,
      ...(q.starting_after ? { before: q.starting_after } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.model ? { model: q.model } : {}),
      ...(q.type ? { type: q.type } : {}),
      ...(q['created[gte]'] ? { created_gte: q['created[gte]'] } : {}),
      ...(q['created[lte]'] ? { created_lte: q['created[lte]'] } : {}),
    },
    opts,
  );
  // The dashboard's list shows which key made a job; the API's Job object is the same as GET /jobs/:id.
  return { jobs: reply.jobs.map(({ api_key_id: _key, ...job }) => job), has_more: reply.has_more };
}
