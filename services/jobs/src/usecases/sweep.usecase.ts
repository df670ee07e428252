import { findExpired, findPendingRefunds, findStuckSubmitting, deleteJobs, transition } from '../repositories/jobs.repository';
import { deletePublishedBefore } from '../repositories/outbox.repository';
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
    const rejected = await transition(ctx.db, job.id, 'submitting', { status: 'rejected', error: 'interrupted submit', refund_state: 'pending' });
    if (!rejected) continue;
    n++;
    ctx.logger.warn({ jobId: job.id }, 'refunding a submit interrupted by a crash');
    await settleRefund(ctx, rejected);
  }
  return n;
}

/** Refunds recorded as owed whose confirmation from billing has not arrived yet. */
export async function retryPendingRefunds(ctx: JobsContext): Promise<number> {
  const pending = await findPendingRefunds(ctx.db, 100);
  let n = 0;
  for (const job of pending) if ((await settleRefund(ctx, job)) !== null) n++;
  return n;
}

/** Deletes jobs past retention with their media; they answer 404 from then on. */
export async function sweepRetention(ctx: JobsContext, retentionDays: number): Promise<number> {
  const expired = await findExpired(ctx.db, retentionDays, 200);
  for (const { id } of expired) await ctx.storage.deletePrefix(`jobs/${id}/`);
  await deleteJobs(
    ctx.db,
    expired.map((j) => j.id),
  );
  await deletePublishedBefore(ctx.db, 7);
  return expired.length;
}
