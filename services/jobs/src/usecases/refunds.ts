import { billingRpc } from '@mf/contracts';
import { markRefunded } from '../repositories/jobs.repository';
import { chargeReference, refundReason, type JobRow } from '../domain/job';
import type { JobsContext } from './context';

/**
 * Pays back a job whose refund is owed (refund_state = pending). Billing refunds a reference once,
 * so calling this again after a crash or a lost reply is safe; until billing confirms, the
 * sweeper keeps retrying. Returns the credits refunded, or null when billing did not answer.
 */
export async function settleRefund(
  ctx: JobsContext,
  job: Pick<JobRow, 'id' | 'user_id' | 'status' | 'cancelled_by'>,
): Promise<number | null> {
  try {
    const reply = await ctx.bus.rpc(billingRpc, 'refund', {
      user_id: job.user_id,
      reference: chargeReference(job.id),
      reason: refundReason(job),
    });
    await markRefunded(ctx.db, job.id);
    return reply.refunded;
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id }, 'refund not confirmed yet; the sweeper will retry');
    return null;
  }
}
