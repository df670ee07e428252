import type {
  JobAttemptsReply,
  JobRef,
  JobRefs,
  JobResultReply,
  JobsOfRefs,
  JobStatus,
  Job,
  ListJobsReply,
  ListJobsRequest,
  ProviderCallbackRequest,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { checkCallbackToken } from '@mf/runtime';
import { currentAttempt, toView, type JobRow } from '../domain/job';
import { findAttempt, listAttempts } from '../repositories/attempts.repository';
import { findJob, findVisibleJob, findVisibleJobsByIds, listVisibleJobs } from '../repositories/jobs.repository';
import type { CallbackDelivery } from '../providers/provider';
import type { JobsContext } from './context';

export const JOB_NOT_FOUND = 'Job not found';

/** A job of this user; another user's job is as absent as a missing one. */
export async function getJob(ctx: JobsContext, ref: JobRef): Promise<Job> {
  const row = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!row) throw AppError.notFound(JOB_NOT_FOUND);
  return toView(row, ctx.settings.publicBaseUrl);
}

/**
 * Several reads as getJob answers each, from one query: a ref's Job, or null where getJob is a 404
 * (missing, not visible, or another user's). A job read twice in the batch is viewed once.
 */
export async function getJobs(ctx: JobsContext, req: JobRefs): Promise<JobsOfRefs> {
  const rows = await findVisibleJobsByIds(ctx.db, [...new Set(req.refs.map((ref) => ref.job_id))]);
  const views = new Map<string, { row: JobRow; view?: Job }>(rows.map((row) => [row.id, { row }]));
  return {
    jobs: req.refs.map((ref) => {
      const found = views.get(ref.job_id);
      if (!found || found.row.user_id !== ref.user_id) return null;
      return (found.view ??= toView(found.row, ctx.settings.publicBaseUrl));
    }),
  };
}

export const DEFAULT_LIST_LIMIT = 50;

/**
 * A page of the user's jobs, newest first, each with the key it was submitted with, narrowed by
 * the request's filters. `has_more` says whether older matching jobs follow (one row more is
 * read to know). A `before` that is not one of the user's jobs (another user's, or deleted by
 * retention) ends the list.
 */
export async function listJobs(ctx: JobsContext, req: ListJobsRequest): Promise<ListJobsReply> {
  if (req.before !== undefined && !(await findVisibleJob(ctx.db, req.user_id, req.before)))
    return { jobs: [], has_more: false };
  const limit = req.limit ?? DEFAULT_LIST_LIMIT;
  const rows = await listVisibleJobs(ctx.db, req.user_id, limit + 1, req.before, {
    status: req.status,
    modelId: req.model,
    type: req.type,
    apiKeyId: req.api_key_id,
    createdGte: req.created_gte === undefined ? undefined : new Date(req.created_gte),
    createdLte: req.created_lte === undefined ? undefined : new Date(req.created_lte),
  });
  const page = rows.slice(0, limit);
  return {
    jobs: page.map((row) => ({ ...toView(row, ctx.settings.publicBaseUrl), api_key_id: row.api_key_id })),
    has_more: rows.length > limit,
  };
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

/** A job's attempts, oldest first (the dashboard's job page; GET /api/v1/jobs/:id does not show them). */
export async function getJobAttempts(ctx: JobsContext, ref: JobRef): Promise<JobAttemptsReply> {
  const row = await findVisibleJob(ctx.db, ref.user_id, ref.job_id);
  if (!row) throw AppError.notFound(JOB_NOT_FOUND);
  const attempts = await listAttempts(ctx.db, row.id);
  return {
    job_id: row.id,
    attempts: attempts.map((a) => ({
      n: a.n,
      provider: a.provider,
      upstream_model: a.upstream_model,
      upstream_id: a.upstream_id,
      state: a.state,
      error: a.error,
      progress: a.progress,
      started_at: new Date(a.started_at).toISOString(),
      ended_at: a.ended_at ? new Date(a.ended_at).toISOString() : null,
      upstream_cost: a.upstream_cost === null ? null : Number(a.upstream_cost),
      upstream_cost_source: a.upstream_cost_source,
    })),
  };
}

/**
 * An upstream provider says a job changed: poll it now (`poll` claims and advances it at once, see
 * CallbackPolls). The token proves the URL is ours, made for this attempt, and not expired; the body
 * is trusted only where the provider signs it and the signature is checked: then its outcome
 * stands in for the status call (Provider.callbackResult: fal's JWKS-signed result, Replicate's
 * prediction with a secret set), and a late result of an attempt already given up is logged and
 * discarded. An unsigned body is a nudge only. `pollIfCurrent` (CallbackPolls'), when given,
 * first tries the usual case in one statement: the named attempt is the job's current one, and its
 * provider signs no callbacks (nothing to verify); otherwise the job is read and looked at closer.
 */
export async function providerCallback(
  ctx: JobsContext,
  req: ProviderCallbackRequest,
  poll: (jobId: string, callback?: CallbackDelivery) => Promise<boolean>,
  pollIfCurrent?: (
    jobId: string,
    attempt: number,
    providers: string[],
    callback?: CallbackDelivery,
  ) => Promise<boolean>,
): Promise<{ accepted: boolean }> {
  const call = { jobId: req.job_id, attempt: req.attempt, token: req.token };
  if (!checkCallbackToken(ctx.settings.callbackSecret, call)) return { accepted: false };
  if (req.attempt && pollIfCurrent) {
    const unsigned = ctx.routing
      .all()
      .filter((p) => !p.verifyCallback)
      .map((p) => p.name);
    if (await pollIfCurrent(req.job_id, req.attempt, unsigned, req.webhook)) return { accepted: true };
  }
  const job = await findJob(ctx.db, req.job_id);
  if (!job) return { accepted: false };
  const n = req.attempt ?? currentAttempt(job);
  // The current attempt's provider is the job's (both change together): its row is read only for an older attempt.
  const attempt = n > 0 && n !== currentAttempt(job) ? await findAttempt(ctx.db, job.id, n) : undefined;
  const provider = ctx.routing.provider(attempt?.provider ?? job.provider);
  const verdict = provider?.verifyCallback?.(req.webhook);
  if (verdict && !verdict.authentic) {
    ctx.logger.warn(
      { jobId: job.id, attempt: n, provider: provider?.name },
      'provider callback with a missing or wrong signature ignored',
    );
    return { accepted: false };
  }
  const current = job.status === 'processing' && n === currentAttempt(job);
  if (!current) {
    if (verdict?.succeeded) {
      ctx.logger.warn(
        { jobId: job.id, attempt: n, provider: provider?.name, upstreamId: verdict.requestId },
        'late success of an attempt already given up: result discarded (the upstream may bill for it)',
      );
    }
    return { accepted: false };
  }
  const accepted = await poll(job.id, req.webhook);
  return { accepted };
}
