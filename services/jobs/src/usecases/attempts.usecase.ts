import { performance } from 'node:perf_hooks';
import { signCallbackToken } from '@mf/runtime';
import { currentAttempt, modeOf, type JobRow } from '../domain/job';
import { ProviderSubmitError, UnsupportedParameterError, type ProviderJob } from '../providers/provider';
import { endAttempt, insertAttempt, markAttemptRunning } from '../repositories/attempts.repository';
import { transition } from '../repositories/jobs.repository';
import type { AttemptOutcome } from '../routing/provider-metrics';
import type { AttemptRoute } from '../routing/routing';
import type { JobsContext } from './context';
import { startProcessing } from './transitions';

/**
 * Routing with fallback (docs/providers.md). A job tries its routes in order, one attempt each; an
 * attempt that fails before any output moves the job to the next route. Every attempt is recorded
 * before its upstream call, and each step is a compare-and-set on the job's status and attempt
 * number, so a crash or a race between two handlers never runs two attempts as the current one,
 * and a late result of an attempt already given up can never complete the job. Money is not
 * touched here: the job was charged once, and its one outcome (kept or refunded) is the job's.
 */

export const NO_PROVIDER_TOOK_IT = 'No provider could take the job';

export type Launch =
  /** An upstream took the job; it is processing on this attempt. */
  | { kind: 'launched'; job: JobRow }
  /** The submit's time ran out with routes left: the job is processing and the poller goes on. */
  | { kind: 'deferred'; job: JobRow }
  /** Every route failed: `error` is the message for the job's owner. */
  | { kind: 'exhausted'; error: string }
  /** The job ended or moved on under us (cancel, sweeper, another handler): nothing more to do. */
  | { kind: 'lost' };

/** The routes of a job (a job from before routes were recorded follows the current configuration). */
export function jobRoutes(ctx: JobsContext, job: JobRow): AttemptRoute[] {
  return job.routes?.length ? job.routes : ctx.routing.routesFor(job.model_id, modeOf(job));
}

/**
 * A callback arriving this long after the job's deadline is still taken: the sweeper may not have
 * ended the job yet, and the gateway's clock may be behind this replica's.
 */
export const CALLBACK_GRACE_MS = 5 * 60_000;

/** Where the upstream of attempt n calls us back: a token for that attempt, good until the job's deadline. */
export function callbackUrlFor(ctx: JobsContext, job: Pick<JobRow, 'id' | 'deadline_at'>, n: number): string {
  const base = ctx.settings.publicBaseUrl.replace(/\/+$/, '');
  const token = signCallbackToken(ctx.settings.callbackSecret, {
    jobId: job.id,
    attempt: n,
    expiresAt: new Date(new Date(job.deadline_at).getTime() + CALLBACK_GRACE_MS),
  });
  return `${base}/api/providers/callback/${job.id}?token=${token}&attempt=${n}`;
}

/** What attempt n of a job on `route` asks of its provider. */
export function providerJobFor(ctx: JobsContext, job: JobRow, n: number, route: AttemptRoute): ProviderJob {
  const provider = ctx.routing.provider(route.provider);
  return {
    jobId: job.id,
    type: job.type,
    modelId: job.model_id,
    mode: modeOf(job),
    upstreamModel: route.model ?? job.upstream_model,
    attempt: n,
    params: job.params,
    callbackUrl: provider?.wantsCallback ? callbackUrlFor(ctx, job, n) : undefined,
  } as ProviderJob;
}

/** The job's current attempt as its row records it. */
export function currentProviderJob(ctx: JobsContext, job: JobRow): ProviderJob {
  return providerJobFor(ctx, job, currentAttempt(job), { provider: job.provider, model: job.upstream_model });
}

/**
 * Tries the job's routes after its current attempt until an upstream takes it. `from` is the job's
 * status: submitting (inside the submit call, which ends on `budgetEndsAt` once one route was tried)
 * or processing (the poller, after an attempt failed). `lastError` is the failure that led here.
 * `claimed`: the job's current attempt is recorded but not yet tried (a new job, made on its first
 * route): it is tried first, without claiming it again.
 */
export async function launchAttempts(
  ctx: JobsContext,
  job: JobRow,
  from: 'submitting' | 'processing',
  opts: { budgetEndsAt?: number; lastError?: string; claimed?: boolean } = {},
): Promise<Launch> {
  const routes = jobRoutes(ctx, job);
  let guard = job.attempt;
  let index = currentAttempt(job);
  // The submit's budget allows the first route tried here, whatever it costs.
  const first = opts.claimed ? index - 1 : index;
  if (opts.claimed && index >= 1 && index <= routes.length) {
    const tried = await tryRoute(ctx, job, from, index, routes[index - 1]);
    if (tried !== 'failed') return tried;
  }
  while (index < routes.length) {
    if (opts.budgetEndsAt !== undefined && index > first && Date.now() >= opts.budgetEndsAt) {
      const handed = await startProcessing(
        ctx,
        job.id,
        'submitting',
        { provider_request_id: null, next_poll_at: new Date() },
        guard,
      );
      return handed ? { kind: 'deferred', job: handed } : { kind: 'lost' };
    }
    const n = index + 1;
    const route = routes[index];
    if (!(await claimAttempt(ctx, job, from, guard, n, route))) return { kind: 'lost' };
    guard = n;
    index = n;
    const tried = await tryRoute(ctx, job, from, n, route);
    if (tried !== 'failed') return tried;
  }
  return { kind: 'exhausted', error: opts.lastError ?? NO_PROVIDER_TOOK_IT };
}

/** Makes attempt n the job's current one and records it, in one transaction (compare-and-set on the previous attempt). */
async function claimAttempt(
  ctx: JobsContext,
  job: JobRow,
  from: 'submitting' | 'processing',
  guard: number,
  n: number,
  route: AttemptRoute,
): Promise<boolean> {
  return ctx.db.transaction(async (trx) => {
    const row = await transition(
      trx,
      job.id,
      from,
      {
        attempt: n,
        provider: route.provider,
        upstream_model: route.model ?? job.upstream_model,
        provider_request_id: null,
        attempt_deadline_at: null,
        progress: null,
        queue_position: null,
      },
      guard,
    );
    if (!row) return false;
    await insertAttempt(trx, {
      job_id: job.id,
      n,
      provider: route.provider,
      provider_type: ctx.routing.spec(route.provider)?.type ?? null,
      upstream_model: route.model,
    });
    return true;
  });
}

async function tryRoute(
  ctx: JobsContext,
  job: JobRow,
  from: 'submitting' | 'processing',
  n: number,
  route: AttemptRoute,
): Promise<Launch | 'failed'> {
  const log = ctx.logger.child({ jobId: job.id, attempt: n, provider: route.provider });
  const provider = ctx.routing.provider(route.provider);
  const breaker = ctx.routing.breaker(route.provider);
  const skip = async (why: string): Promise<'failed'> => {
    log.info({ reason: why }, 'route skipped');
    await finishAttempt(ctx, job.id, n, route.provider, 'skipped', why);
    return 'failed';
  };
  if (!provider) return skip(`provider ${route.provider} is no longer configured`);
  if (!route.model) return skip(`${route.provider} has no model for ${modeOf(job)}`);
  if (!breaker.allows()) return skip(`circuit open until ${breaker.retryAt?.toISOString()}`);

  const pj = providerJobFor(ctx, job, n, route);
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  let requestId: string;
  try {
    ({ requestId } = await provider.submit(pj));
  } catch (err) {
    // Our own wording only: status codes and error codes, never upstream text.
    const message = err instanceof ProviderSubmitError ? err.message : 'submit failed';
    ctx.routing.metrics.submitDuration.observe({ provider: route.provider, outcome: 'refused' }, seconds());
    if (!(err instanceof UnsupportedParameterError)) {
      breaker.failure();
      ctx.routing.metrics.failures.inc({ provider: route.provider, stage: 'submit' });
    }
    log.warn({ err: message }, 'attempt refused at submit; trying the next route');
    await finishAttempt(ctx, job.id, n, route.provider, 'failed', message);
    return 'failed';
  }
  ctx.routing.metrics.submitDuration.observe({ provider: route.provider, outcome: 'accepted' }, seconds());
  const timeoutMs = ctx.routing.spec(route.provider)?.attemptTimeoutMs;
  const started = await startProcessing(
    ctx,
    job.id,
    from,
    {
      provider_request_id: requestId,
      attempt_deadline_at: timeoutMs ? new Date(Date.now() + timeoutMs) : null,
      next_poll_at: new Date(Date.now() + Math.min(ctx.settings.pollIntervalMs, 1000)),
      poll_failures: 0,
    },
    n,
    // The row as inserted is still the job's while it is on that attempt (a new job's first route).
    from === 'submitting' ? job : undefined,
    // The upstream id, committed first: a handler that dies blocked on the row leaves it to adopt.
    markAttemptRunning(ctx.db, job.id, n, requestId),
  );
  if (!started) {
    // The job ended (cancelled, or swept as a dead submit) or moved on while this submit ran: undo it.
    await provider.cancel(requestId, pj).catch(() => undefined);
    await finishAttempt(ctx, job.id, n, route.provider, 'abandoned', 'the job ended while this attempt was submitted');
    log.warn(
      { requestId },
      'attempt abandoned right after its submit and cancelled upstream; a result it still makes is discarded (the upstream may bill for it)',
    );
    return { kind: 'lost' };
  }
  return { kind: 'launched', job: started };
}

/** Ends an attempt (once: a second outcome is ignored), counting it in the provider's metrics. */
export async function finishAttempt(
  ctx: JobsContext,
  jobId: string,
  n: number,
  provider: string,
  outcome: AttemptOutcome,
  error: string | null,
): Promise<void> {
  if (n < 1) return;
  const ended = await endAttempt(ctx.db, jobId, n, outcome, error);
  if (ended) countAttemptEnd(ctx, provider, outcome, ended.started_at);
}

/** Counts an attempt that ended (started at `startedAt`) in the provider's metrics. */
export function countAttemptEnd(ctx: JobsContext, provider: string, outcome: AttemptOutcome, startedAt: Date): void {
  ctx.routing.metrics.attempts.inc({ provider, outcome });
  const seconds = (Date.now() - new Date(startedAt).getTime()) / 1000;
  if (outcome !== 'skipped') ctx.routing.metrics.attemptDuration.observe({ provider, outcome }, Math.max(0, seconds));
}

/**
 * Gives up the current attempt of a job that ended or moves on (timed out, cancelled): cancels it
 * upstream and records its outcome. A result it still makes is never read: only the current
 * attempt's request is polled, and completing the job checks the attempt number.
 */
export async function giveUpAttempt(
  ctx: JobsContext,
  job: JobRow,
  outcome: AttemptOutcome,
  error: string | null,
): Promise<void> {
  const n = currentAttempt(job);
  const provider = ctx.routing.provider(job.provider);
  if (job.provider_request_id && provider) {
    await provider
      .cancel(job.provider_request_id, currentProviderJob(ctx, job))
      .catch((err: Error) => ctx.logger.warn({ err: err.message, jobId: job.id }, 'upstream cancel failed'));
  }
  await finishAttempt(ctx, job.id, n, job.provider, outcome, error);
}
