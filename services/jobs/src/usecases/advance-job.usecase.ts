import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { outputKey, type JobRow } from '../domain/job';
import { claimDueJobs, schedulePoll } from '../repositories/jobs.repository';
import type { ProviderOutput } from '../providers/provider';
import type { JobsContext } from './context';
import { providerJob } from './submit-job.usecase';
import { completeJob, failJob } from './transitions';

export const TIMED_OUT = 'Generation timed out';
export const NO_MEDIA = 'The provider returned no media';

/** Time a claimed job is reserved for this replica while it is handled. */
const LEASE_MS = 60_000;

/** One poll round: claim due jobs (SKIP LOCKED) and advance each. Returns how many were handled. */
export async function advanceDueJobs(ctx: JobsContext, batch: number): Promise<number> {
  const jobs = await claimDueJobs(ctx.db, batch, LEASE_MS);
  await Promise.all(jobs.map((job) => advanceJob(ctx, job).catch((err: unknown) => ctx.logger.error({ err, jobId: job.id }, 'advancing a job failed'))));
  return jobs.length;
}

/** Asks the provider about one job and moves it on: completed, failed, timed out, or later. */
export async function advanceJob(ctx: JobsContext, job: JobRow): Promise<void> {
  const pj = providerJob(ctx, job);
  if (Date.now() >= job.deadline_at.getTime()) {
    const failed = await failJob(ctx, job, TIMED_OUT);
    if (failed && job.provider_request_id) await ctx.provider.cancel(job.provider_request_id, pj).catch(() => undefined);
    return;
  }
  let status;
  try {
    status = await ctx.provider.status(job.provider_request_id!, pj);
  } catch (err) {
    // Transient (network, 5xx): try again later; the deadline bounds how long.
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id }, 'provider status failed; will retry');
    await schedulePoll(ctx.db, job.id, backoff(ctx, job.poll_failures + 1), true);
    return;
  }
  if (status.state === 'running') {
    await schedulePoll(ctx.db, job.id, ctx.settings.pollIntervalMs);
    return;
  }
  if (status.state === 'failed') {
    await failJob(ctx, job, status.error);
    await ctx.provider.release?.(job.provider_request_id!);
    return;
  }
  if (!status.outputs.length) {
    await failJob(ctx, job, NO_MEDIA);
    return;
  }
  let keys: string[];
  try {
    keys = await storeOutputs(ctx, job, status.outputs);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id }, 'storing results failed; will retry');
    await schedulePoll(ctx.db, job.id, backoff(ctx, job.poll_failures + 1), true);
    return;
  }
  await completeJob(ctx, job, keys);
  await ctx.provider.release?.(job.provider_request_id!);
}

/** Copies every output into our storage, so every URL we hand out is ours and permanent. */
async function storeOutputs(ctx: JobsContext, job: JobRow, outputs: ProviderOutput[]): Promise<string[]> {
  const keys: string[] = [];
  for (const [i, out] of outputs.entries()) {
    const key = outputKey(job.id, job.type, i);
    const contentType = job.type === 'video' ? 'video/mp4' : 'image/png';
    if (out.kind === 'file') {
      await ctx.storage.putFile(key, out.path, contentType);
    } else {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mf-result-'));
      try {
        const file = path.join(dir, 'output');
        await ctx.downloadResult(out.url, file);
        await ctx.storage.putFile(key, file, out.contentType ?? contentType);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    }
    keys.push(key);
  }
  return keys;
}

function backoff(ctx: JobsContext, failures: number): number {
  return Math.min(60_000, ctx.settings.pollIntervalMs * 2 ** Math.min(failures, 6));
}
