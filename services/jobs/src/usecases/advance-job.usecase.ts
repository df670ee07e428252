import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { currentAttempt, outputKey, type JobRow } from '../domain/job';
import { findAttempt, OPEN_STATES } from '../repositories/attempts.repository';
import { schedulePoll, transition } from '../repositories/jobs.repository';
import type { ProviderOutput, ProviderStatus, StatusHint } from '../providers/provider';
import {
  countAttemptEnd,
  currentProviderJob,
  finishAttempt,
  giveUpAttempt,
  launchAttempts,
  NO_PROVIDER_TOOK_IT,
} from './attempts.usecase';
import type { JobsContext } from './context';
import { reportProgress } from './progress.usecase';
import { recordUpstreamCost } from './upstream-cost';
import { completeJob, failJob } from './transitions';

export const TIMED_OUT = 'Generation timed out';
export const NO_MEDIA = 'The provider returned no media';
/** Recorded on an attempt that ran past its provider's attempt_timeout_ms. */
export const ATTEMPT_TIMED_OUT = 'attempt timed out';

/** Time a claimed job is reserved for this replica while it is handled. */
export const LEASE_MS = 60_000;

/**
 * Moves one processing job on: asks its current attempt's provider, then completes the job, or
 * tries the next route when the attempt failed or ran out of time, or fails (refunds) the job when
 * no route is left or the job's own deadline passed. `hint` goes to the provider's status call.
 */
export async function advanceJob(ctx: JobsContext, job: JobRow, hint?: StatusHint): Promise<void> {
  if (Date.now() >= job.deadline_at.getTime()) {
    // The ended row names the attempt that was current when the job ended.
    const failed = await failJob(ctx, job, TIMED_OUT);
    if (failed) {
      ctx.routing.metrics.timedOut.inc();
      await giveUpAttempt(ctx, failed, 'timed_out', TIMED_OUT);
    }
    return;
  }
  if (!job.provider_request_id) return resumeLaunch(ctx, job);
  const provider = ctx.routing.provider(job.provider);
  if (!provider) {
    await finishAttempt(
      ctx,
      job.id,
      currentAttempt(job),
      job.provider,
      'failed',
      `provider ${job.provider} is no longer configured`,
    );
    return nextRoute(ctx, job);
  }
  if (job.attempt_deadline_at && Date.now() >= job.attempt_deadline_at.getTime()) {
    ctx.routing.breaker(job.provider).failure();
    ctx.routing.metrics.failures.inc({ provider: job.provider, stage: 'timeout' });
    await giveUpAttempt(ctx, job, 'timed_out', ATTEMPT_TIMED_OUT);
    return nextRoute(ctx, job, TIMED_OUT);
  }

  let status: ProviderStatus;
  try {
    const providerJob = currentProviderJob(ctx, job);
    // A signed callback that carries the outcome saves the status call (and fal's result request).
    const carried =
      hint?.callback && provider.callbackResult
        ? await provider.callbackResult(hint.callback, job.provider_request_id, providerJob)
        : undefined;
    status = carried ?? (await provider.status(job.provider_request_id, providerJob, hint));
  } catch (err) {
    // Transient (network, 5xx): try again later; the attempt's and the job's deadlines bound how long.
    ctx.routing.metrics.failures.inc({ provider: job.provider, stage: 'status' });
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id }, 'provider status failed; will retry');
    await schedulePoll(ctx.db, job.id, backoff(ctx, job.poll_failures + 1), true);
    return;
  }
  if (status.state === 'running') {
    await reportProgress(ctx, job, { progress: status.progress, queuePosition: status.queuePosition });
    await schedulePoll(ctx.db, job.id, ctx.settings.pollIntervalMs);
    return;
  }
  await recordUpstreamCost(ctx, job, status);
  if (status.state === 'failed' || !status.outputs.length) {
    const error = status.state === 'failed' ? status.error : NO_MEDIA;
    ctx.routing.breaker(job.provider).failure();
    ctx.routing.metrics.failures.inc({ provider: job.provider, stage: 'reported' });
    await finishAttempt(ctx, job.id, currentAttempt(job), job.provider, 'failed', error);
    await provider.release?.(job.provider_request_id);
    return nextRoute(ctx, job, error);
  }
  let keys: string[];
  try {
    keys = await storeOutputs(ctx, job, status.outputs);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id }, 'storing results failed; will retry');
    await schedulePoll(ctx.db, job.id, backoff(ctx, job.poll_failures + 1), true);
    return;
  }
  // Completes only if this attempt is still the job's current one (a late result of an attempt given up never does).
  const done = await completeJob(ctx, job, keys, job.attempt);
  if (done) {
    // Ended with the completion, in its statement, in the usual case; else here, as other outcomes are.
    if (done.attemptStartedAt) countAttemptEnd(ctx, job.provider, 'succeeded', done.attemptStartedAt);
    else await finishAttempt(ctx, job.id, currentAttempt(job), job.provider, 'succeeded', null);
    ctx.routing.breaker(job.provider).success();
    ctx.routing.metrics.creditsCharged.inc({ provider: job.provider, model: job.model_id }, job.cost);
  } else {
    ctx.logger.warn(
      { jobId: job.id, attempt: currentAttempt(job), provider: job.provider, upstreamId: job.provider_request_id },
      'late success of an attempt no longer current (the job ended or moved on): result discarded (the upstream may bill for it)',
    );
  }
  await provider.release?.(job.provider_request_id);
}

/** The current attempt has ended without output: the next route, or the job fails (refunded) when none is left. */
async function nextRoute(ctx: JobsContext, job: JobRow, lastError?: string): Promise<void> {
  const launch = await launchAttempts(ctx, job, 'processing', { lastError });
  if (launch.kind !== 'exhausted') return;
  const failed = await failJob(ctx, job, launch.error);
  // The last route ran out of time: the job ends as timed out, as at its own deadline.
  if (failed && launch.error === TIMED_OUT) ctx.routing.metrics.timedOut.inc();
}

/**
 * A processing job without an upstream request: its submit left the rest of the routes to the
 * poller, or a handler died between claiming an attempt and recording the upstream's answer.
 */
async function resumeLaunch(ctx: JobsContext, job: JobRow): Promise<void> {
  const n = currentAttempt(job);
  const attempt = n > 0 ? await findAttempt(ctx.db, job.id, n) : undefined;
  if (attempt && OPEN_STATES.includes(attempt.state)) {
    if (attempt.upstream_id) {
      // The upstream took it and the handler died before the job said so: adopt it, never submit twice.
      const timeoutMs = ctx.routing.spec(attempt.provider)?.attemptTimeoutMs;
      await transition(
        ctx.db,
        job.id,
        'processing',
        {
          provider_request_id: attempt.upstream_id,
          next_poll_at: new Date(),
          attempt_deadline_at: timeoutMs ? new Date(attempt.started_at.getTime() + timeoutMs) : null,
        },
        job.attempt,
      );
      return;
    }
    if (Date.now() - attempt.started_at.getTime() < ctx.settings.submitStaleAfterMs) {
      await schedulePoll(ctx.db, job.id, ctx.settings.pollIntervalMs);
      return;
    }
    ctx.logger.warn(
      { jobId: job.id, attempt: n, provider: attempt.provider },
      'an attempt was interrupted during its submit; trying the next route (the upstream may have taken it, and may bill for it)',
    );
    await finishAttempt(ctx, job.id, n, attempt.provider, 'failed', 'interrupted during submit');
  }
  const launch = await launchAttempts(ctx, job, 'processing');
  if (launch.kind === 'exhausted') await failJob(ctx, job, NO_PROVIDER_TOOK_IT);
}

/**
 * Copies every output into our storage, so every URL we hand out is ours and permanent. A URL's
 * body goes straight into the storage's write, which makes the object visible only once the whole
 * body is in (and durable): a download that fails midway leaves nothing, and the job is retried.
 */
async function storeOutputs(ctx: JobsContext, job: JobRow, outputs: ProviderOutput[]): Promise<string[]> {
  const keys: string[] = [];
  for (const [i, out] of outputs.entries()) {
    const key = outputKey(job.id, job.type, i, currentAttempt(job));
    const contentType = job.type === 'video' ? 'video/mp4' : 'image/png';
    if (out.kind === 'file') await ctx.storage.putFile(key, out.path, contentType);
    else if (out.kind === 'url')
      await ctx.downloadResult(out.url, (body) => ctx.storage.put(key, body, out.contentType ?? contentType));
    else await storeAdapterDownload(ctx, key, out, out.contentType ?? contentType);
    keys.push(key);
  }
  return keys;
}

/** An adapter that fetches its output itself writes it to a file of ours first. */
async function storeAdapterDownload(
  ctx: JobsContext,
  key: string,
  out: Extract<ProviderOutput, { kind: 'download' }>,
  contentType: string,
): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mf-result-'));
  try {
    const file = path.join(dir, 'output');
    await out.download(file);
    await ctx.storage.putFile(key, file, contentType);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function backoff(ctx: JobsContext, failures: number): number {
  return Math.min(60_000, ctx.settings.pollIntervalMs * 2 ** Math.min(failures, 6));
}
