import type { Knex } from '@mf/db';
import type { RefundReply, RefundRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import * as ledger from '../repositories/ledger.repository';

/**
 * Returns exactly what `reference` charged, once, however many times it is called. A refund of a
 * reference that was never charged records a zero refund, which closes the reference: a charge
 * arriving late (a stale message after a crash) is then refused instead of kept.
 */
export async function refund(db: Knex, req: RefundRequest): Promise<RefundReply> {
  return db.transaction(async (trx) => {
    await ledger.lockReference(trx, req.reference);
    const existing = await ledger.findByReference(trx, req.reference);
    const charged = existing.find((r) => r.kind === 'charge');
    const refunded = existing.find((r) => r.kind === 'refund');
    if (charged && charged.user_id !== req.user_id) throw AppError.conflict(`reference ${req.reference} belongs to another user`);
    if (refunded) {
      return { refunded: refunded.amount, credits_remaining: await ledger.balanceOf(trx, req.user_id), duplicate: true };
    }
    const amount = charged?.amount ?? 0;
    const remaining = amount > 0 ? await ledger.credit(trx, req.user_id, amount) : await ledger.balanceOf(trx, req.user_id);
    await ledger.insertEntry(trx, { user_id: req.user_id, kind: 'refund', reference: req.reference, amount, balance_after: remaining, description: req.reason });
    return { refunded: amount, credits_remaining: remaining, duplicate: false };
  });
}
