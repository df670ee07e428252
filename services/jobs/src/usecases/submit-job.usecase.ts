import { billingRpc, type SubmitJobReply, type SubmitJobRequest } from '@mf/contracts';
import { FetchError } from '@mf/safe-fetch';
import { AppError, isAppError, isCallerFault } from '@mf/errors';
import { chargeDescription, chargeReference, newJobId, planJob, type JobRow } from '../domain/job';
import {
  deleteJob,
  findJobByIdempotencyKey,
  insertJobOnFirstAttempt,
  insertJobUnlessKeyed,
  transition,
  type NewJobRow,
} from '../repositories/jobs.repository';
import { launchAttempts } from './attempts.usecase';
import type { JobsContext } from './context';
import { settleRefund } from './refunds';

export const PROVIDER_SUBMIT_FAILED =
  'Upstream provider error: the job could not be submitted. Your credits have been refunded.';

/**
 * The order of a submit (ARCHITECTURE "Money"): job row (submitting, with its first attempt
 * recorded, one statement) -> charge -> provider submit (route after route, docs/providers.md) ->
 * processing. A refused charge leaves nothing behind; when
 * every route refuses, the job is refunded and never becomes visible; a crash anywhere in between
 * leaves a submitting row that the sweeper refunds. One charge per job, whatever the attempts.
 */
export async function submitJob(ctx: JobsContext, req: SubmitJobRequest): Promise<SubmitJobReply> {
  const since = req.idempotency ? new Date(Date.now() - req.idempotency.window_hours * 3_600_000) : null;
  if (req.idempotency && since) {
    const earlier = await findJobByIdempotencyKey(ctx.db, req.user_id, req.idempotency.key, since);
    if (earlier) return resubmitted(ctx, earlier);
  }
  checkOrigin(req);
  await checkReferences(ctx, req);
  const plan = planJob(req);
  const routes = ctx.routing.routesFor(plan.modelId, plan.mode);
  const row: NewJobRow = {
    id: newJobId(),
    user_id: req.user_id,
    api_key_id: req.api_key_id,
    type: req.type,
    model_id: plan.modelId,
    upstream_model: routes[0].model ?? routes[0].provider,
    params: req.params,
    cost: plan.cost,
    status: 'submitting',
    idempotency_key: req.idempotency?.key ?? null,
    source: req.source ?? 'api',
    project_id: req.source === 'editor' ? (req.project_id ?? null) : null,
    provider: routes[0].provider,
    routes,
    deadline_at: new Date(Date.now() + ctx.settings.jobTimeoutMs),
  };
  const attempt = {
    provider_type: ctx.routing.spec(routes[0].provider)?.type ?? null,
    upstream_model: routes[0].model,
  };
  // Under a key, the check above is repeated under the key's lock with the insert: another submit
  // of the key may have got there in between.
  const keyed =
    req.idempotency && since
      ? await insertJobUnlessKeyed(ctx.db, { ...row, idempotency_key: req.idempotency.key }, attempt, since)
      : { job: await insertJobOnFirstAttempt(ctx.db, row, attempt), inserted: true };
  if (!keyed.inserted) return resubmitted(ctx, keyed.job);
  const job = keyed.job;

  let creditsRemaining: number;
  try {
    const charge = await ctx.bus.rpc(billingRpc, 'charge', {
      user_id: job.user_id,
      reference: chargeReference(job.id),
      amount: job.cost,
      description: chargeDescription(job),
      model: job.model_id,
      // The key's spend and concurrent-jobs limits apply in billing, with the debit (429 / 402).
      api_key_id: job.api_key_id,
    });
    creditsRemaining = charge.credits_remaining;
  } catch (err) {
    // Refused for sure (402 or a bad request): nothing was charged, so nothing may remain.
    if (isAppError(err) && isCallerFault(err)) {
      await deleteJob(ctx.db, job.id);
      throw err;
    }
    // Unknown outcome (billing slow or down): leave the row for the sweeper, which refunds it.
    throw err;
  }

  // The routes in order until one upstream takes the job; past the submit budget the poller goes on.
  const launch = await launchAttempts(ctx, job, 'submitting', {
    budgetEndsAt: Date.now() + ctx.settings.submitBudgetMs,
    claimed: true,
  });
  if (launch.kind === 'exhausted') {
    ctx.logger.warn({ jobId: job.id }, 'every route refused the submit; refunding');
    const rejected = await transition(ctx.db, job.id, 'submitting', {
      status: 'rejected',
      error: 'provider submit failed',
      refund_state: 'pending',
    });
    if (rejected) await settleRefund(ctx, rejected);
    throw new AppError('upstream_failed', { error: PROVIDER_SUBMIT_FAILED });
  }
  // Lost: the sweeper judged this submit dead and refunded it meanwhile (its upstream request was undone).
  if (launch.kind === 'lost') throw new AppError('upstream_failed', { error: PROVIDER_SUBMIT_FAILED });
  return {
    job_id: job.id,
    status: 'processing',
    model: job.model_id,
    credits_consumed: job.cost,
    credits_remaining: creditsRemaining,
  };
}

/**
 * A retry of a submit that already made `job` (its first answer was lost or was a 503): the same
 * 202 again, nothing charged twice. While the first is still between charge and provider submit,
 * a retryable 503.
 */
async function resubmitted(ctx: JobsContext, job: JobRow): Promise<SubmitJobReply> {
  if (job.status === 'submitting') throw AppError.unavailable();
  const account = await ctx.bus.rpc(billingRpc, 'account', { user_id: job.user_id });
  return {
    job_id: job.id,
    status: 'processing',
    model: job.model_id,
    credits_consumed: job.cost,
    credits_remaining: account.credits_remaining,
  };
}

/**
 * Only a job of the dashboard session (the playground's, a studio turn's) may lack a key; an editor
 * job names its project (the RPC schema says so too).
 */
function checkOrigin(req: SubmitJobRequest): void {
  const source = req.source ?? 'api';
  if (req.api_key_id === null && source === 'api') throw AppError.badRequest('api_key_id is required');
  if (source === 'editor' && !req.project_id) throw AppError.badRequest('project_id is required for an editor job');
}

async function checkReferences(ctx: JobsContext, req: SubmitJobRequest): Promise<void> {
  const urls = req.type === 'video' ? (req.params.image_url ? [req.params.image_url] : []) : req.params.image_urls;
  const field = req.type === 'video' ? 'image_url' : 'image_urls item';
  for (const url of urls) {
    try {
      await ctx.assertReferenceUrl(url);
    } catch (err) {
      // A well-formed https URL whose host does not resolve: say so, not that it is not https.
      if (err instanceof FetchError) throw AppError.badRequest(`${field} could not be fetched: ${err.message}`);
      throw AppError.badRequest(
        req.type === 'video' ? 'image_url must be a https URL' : 'image_urls items must be https URLs',
      );
    }
  }
}
