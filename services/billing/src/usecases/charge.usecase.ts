import type { ChargeReply, ChargeRequest } from '@mf/contracts';
import type { GroupCommitter } from './group-commit';

/**
 * Debits `amount` for `reference`, once. Repeating the call with the same reference returns the
 * first outcome without moving credits. A reference already refunded (or voided by a refund that
 * arrived first, e.g. from the crash sweeper) can never be charged. The rules: domain/batch.ts;
 * concurrent calls share one transaction (group-commit.ts).
 */
export async function charge(committer: GroupCommitter, req: ChargeRequest): Promise<ChargeReply> {
  const outcome = await committer.submit({ kind: 'charge', req });
  if (!outcome.ok) throw outcome.error;
  return outcome.reply as ChargeReply;
}
