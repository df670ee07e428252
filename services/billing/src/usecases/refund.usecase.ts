import type { RefundReply, RefundRequest } from '@mf/contracts';
import type { GroupCommitter } from './group-commit';

/**
 * Returns exactly what `reference` charged, once, however many times it is called. A refund of a
 * reference that was never charged records a zero refund, which closes the reference: a charge
 * arriving late (a stale message after a crash) is then refused instead of kept. The rules:
 * domain/batch.ts; concurrent calls share one transaction (group-commit.ts).
 */
export async function refund(committer: GroupCommitter, req: RefundRequest): Promise<RefundReply> {
  const outcome = await committer.submit({ kind: 'refund', req });
  if (!outcome.ok) throw outcome.error;
  return outcome.reply as RefundReply;
}
