import type { ChargeReply, ChargeRequest } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import * as ledger from '../repositories/ledger.repository';

/**
 * Debits `amount` for `reference`, once. Repeating the call with the same reference returns the
 * first outcome without moving credits. A reference already refunded (or voided by a refund that
 * arrived first, e.g. from the crash sweeper) can never be charged.
 */
export async function charge(db: Knex, req: ChargeRequest): Promise<ChargeReply> {
  return db.transaction(async (trx) => {
    await ledger.lockReference(trx, req.reference);
    const existing = await ledger.findByReference(trx, req.reference);
    const previous = existing.find((r) => r.kind === 'charge');
    if (previous) {
      if (previous.user_id !== req.user_id || previous.amount !== req.amount) {
        throw AppError.conflict(`reference ${req.reference} was already charged with different terms`);
      }
      return { charged: previous.amount, credits_remaining: await ledger.balanceOf(trx, req.user_id), duplicate: true };
    }
    if (existing.some((r) => r.kind === 'refund')) {
      throw AppError.conflict(`reference ${req.reference} is closed (already refunded)`);
    }
    const remaining = await ledger.debit(trx, req.user_id, req.amount);
    if (remaining === null) {
      throw AppError.insufficientCredits(req.amount, await ledger.balanceOf(trx, req.user_id));
    }
    await ledger.insertEntry(trx, { user_id: req.user_id, kind: 'charge', reference: req.reference, amount: req.amount, balance_after: remaining, description: req.description });
    return { charged: req.amount, credits_remaining: remaining, duplicate: false };
  });
}
