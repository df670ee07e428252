import { billingRpc, type SubmitJobReply, type SubmitJobRequest } from '@mf/contracts';
import { AppError, isAppError } from '@mf/errors';
import { callbackToken, chargeReference, newJobId, planJob, type JobRow } from '../domain/job';
import { deleteJob, findJobByIdempotencyKey, insertJob, transition } from '../repositories/jobs.repository';
import { ProviderSubmitError, type ProviderJob } from '../providers/provider';
import type { JobsContext } from './context';
import { settleRefund } from './refunds';

export const PROVIDER_SUBMIT_FAILED = 'Upstream provider error: the job could not be submitted. Your credits have been refunded.';

/**
 * The order of a submit (ARCHITECTURE "Money"): job row (submitting) -> charge -> provider submit
 * -> processing. A refused charge leaves nothing behind; a failed provider submit is refunded and
 * the job never becomes visible; a crash anywhere in between leaves a submitting row that the
 * sweeper refunds.
 */
export async function submitJob(ctx: JobsContext, req: SubmitJobRequest): Promise<SubmitJobReply> {
  if (req.idempotency) {
    const since = new Date(Date.now() - req.idempotency.window_hours * 3_600_000);
    const earlier = await findJobByIdempotencyKey(ctx.db, req.user_id, req.idempotency.key, since);
    if (earlier) return resubmitted(ctx, earlier);
  }
  await checkReferences(ctx, req);
  const plan = planJob(req, ctx.falEndpoints);
  const job = await insertJob(ctx.db, {
    id: newJobId(),
    user_id: req.user_id,
    api_key_id: req.api_key_id,
    type: req.type,
    model_id: plan.modelId,
    upstream_model: plan.upstreamModel,
    params: req.params,
    cost: plan.cost,
    status: 'submitting',
    idempotency_key: req.idempotency?.key ?? null,
    provider: ctx.provider.name,
    deadline_at: new Date(Date.now() + ctx.settings.jobTimeoutMs),
  });

  let creditsRemaining: number;
  try {
    const charge = await ctx.bus.rpc(billingRpc, 'charge', { user_id: job.user_id, reference: chargeReference(job.id), amount: job.cost, description: `${job.model_id} job` });
    creditsRemaining = charge.credits_remaining;
  } catch (err) {
    // Refused for sure (402 or a bad request): nothing was charged, so nothing may remain.
    if (isAppError(err) && err.status < 500) {
      await deleteJob(ctx.db, job.id);
      throw err;
    }
    // Unknown outcome (billing slow or down): leave the row for the sweeper, which refunds it.
    throw err;
  }
  ctx.faultPoint('after-charge');

  let requestId: string;
  try {
    ({ requestId } = await ctx.provider.submit(providerJob(ctx, job)));
  } catch (err) {
    ctx.logger.warn({ err: err instanceof ProviderSubmitError ? err.message : err, jobId: job.id }, 'provider submit failed; refunding');
    const rejected = await transition(ctx.db, job.id, 'submitting', { status: 'rejected', error: 'provider submit failed', refund_state: 'pending' });
    if (rejected) await settleRefund(ctx, job);
    throw new AppError(502, { error: PROVIDER_SUBMIT_FAILED });
  }

  const started = await transition(ctx.db, job.id, 'submitting', {
    status: 'processing',
    provider_request_id: requestId,
    next_poll_at: new Date(Date.now() + Math.min(ctx.settings.pollIntervalMs, 1000)),
  });
  if (!started) {
    // The sweeper judged this submit dead and refunded it meanwhile: undo upstream, tell the client.
    await ctx.provider.cancel(requestId, providerJob(ctx, job)).catch(() => undefined);
    throw new AppError(502, { error: PROVIDER_SUBMIT_FAILED });
  }
  return { job_id: job.id, status: 'processing', model: job.model_id, credits_consumed: job.cost, credits_remaining: creditsRemaining };
}

/**
 * A retry of a submit that already made `job` (its first answer was lost or was a 503): the same
 * 202 again, nothing charged twice. While the first is still between charge and provider submit,
 * a retryable 503.
 */
async function resubmitted(ctx: JobsContext, job: JobRow): Promise<SubmitJobReply> {
  if (job.status === 'submitting') throw AppError.unavailable();
  const account = await ctx.bus.rpc(billingRpc, 'account', { user_id: job.user_id });
  return { job_id: job.id, status: 'processing', model: job.model_id, credits_consumed: job.cost, credits_remaining: account.credits_remaining };
}

async function checkReferences(ctx: JobsContext, req: SubmitJobRequest): Promise<void> {
  const urls = req.type === 'video' ? (req.params.image_url ? [req.params.image_url] : []) : req.params.image_urls;
  for (const url of urls) {
    try {
      await ctx.assertReferenceUrl(url);
    } catch {
      throw AppError.badRequest(req.type === 'video' ? 'image_url must be a https URL' : 'image_urls items must be https URLs');
    }
  }
}

export function providerJob(ctx: JobsContext, job: JobRow): ProviderJob {
  const callbackUrl = ctx.settings.providerCallbacks
    ? `${ctx.settings.publicBaseUrl.replace(/\/+$/, '')}/api/providers/callback/${job.id}?token=${callbackToken(ctx.settings.callbackSecret, job.id)}`
    : undefined;
  return { jobId: job.id, type: job.type, modelId: job.model_id, upstreamModel: job.upstream_model, params: job.params, callbackUrl } as ProviderJob;
}
