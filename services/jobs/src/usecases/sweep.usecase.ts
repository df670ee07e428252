import {
  findExpired,
  findPendingRefunds,
  findStuckSubmitting,
  deleteJobs,
  transition,
} from '../repositories/jobs.repository';
import { deletePublishedBefore } from '../repositories/outbox.repository';
import type { JobRow } from '../domain/job';
import { openAttempts } from '../repositories/attempts.repository';
import { finishAttempt, providerJobFor } from './attempts.usecase';
import type { JobsContext } from './context';
import { settleRefund } from './refunds';

/**
 * Jobs left in "submitting" by a crash between charge and provider submit: rejected and refunded.
 * The refund closes the charge reference in billing, so a charge still in flight can never land
 * afterwards.
 */
export async function sweepStuckSubmits(ctx: JobsContext, olderThanMs: number): Promise<number> {
  const stuck = await findStuckSubmitting(ctx.db, olderThanMs, 100);
  let n = 0;
  for (const job of stuck) {
    const rejected = await transition(ctx.db, job.id, 'submitting', {
      status: 'rejected',
      error: 'interrupted submit',
      refund_state: 'pending',
    });
    if (!rejected) continue;
    n++;
    ctx.logger.warn({ jobId: job.id }, 'refunding a submit interrupted by a crash');
    await settleRefund(ctx, rejected);
    await abandonAttempts(ctx, rejected);
  }
  return n;
}

/** Attempts of a job swept as a dead submit: any the upstream took is cancelled there. */
async function abandonAttempts(ctx: JobsContext, job: JobRow): Promise<void> {
  for (const a of await openAttempts(ctx.db, job.id)) {
    const provider = ctx.routing.provider(a.provider);
    if (a.upstream_id && provider) {
      const pj = providerJobFor(ctx, job, a.n, { provider: a.provider, model: a.upstream_model });
      await provider.cancel(a.upstream_id, pj).catch(() => undefined);
    }
    await finishAttempt(ctx, job.id, a.n, a.provider, 'abandoned', 'interrupted submit');
  }
}

/** Refunds recorded as owed whose confirmation from billing has not arrived yet. */
export async function retryPendingRefunds(ctx: JobsContext): Promise<number> {
  const pending = await findPendingRefunds(ctx.db, 100);
  let n = 0;
  for (const job of pending) if ((await settleRefund(ctx, job)) !== null) n++;
  return n;
}

/** How often the retention sweep looks (at least), ms: retention is counted in days. */
export const RETENTION_SWEEP_MS = 60_000;

/** Deletes jobs past retention with their media; they answer 404 from then on. */
export async function sweepRetention(ctx: JobsContext, retentionDays: number): Promise<number> {
  const expired = await findExpired(ctx.db, retentionDays, 200);
  for (const { id } of expired) await ctx.storage.deletePrefix(`jobs/${id}/`);
  await deleteJobs(
    ctx.db,
    expired.map((j) => j.id),
  );
  await deletePublishedBefore(ctx.db, retentionDays); // the event log lives as long as the jobs
  return expired.length;
}
