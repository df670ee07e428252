import type { Knex } from '@mf/db';
import type { GrantReply, GrantRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import * as ledger from '../repositories/ledger.repository';

/** Adds credits to a user's balance, once per reference. */
export async function grant(db: Knex, req: GrantRequest): Promise<GrantReply> {
  return db.transaction(async (trx) => {
    await ledger.lockReference(trx, req.reference);
    const previous = (await ledger.findByReference(trx, req.reference)).find((r) => r.kind === 'grant');
    if (previous) {
      if (previous.user_id !== req.user_id || previous.amount !== req.amount) {
        throw AppError.conflict(`reference ${req.reference} was already granted with different terms`);
      }
      return { granted: previous.amount, credits_remaining: await ledger.balanceOf(trx, req.user_id), duplicate: true };
    }
    const remaining = await ledger.credit(trx, req.user_id, req.amount);
    await ledger.insertEntry(trx, {
      user_id: req.user_id,
      kind: 'grant',
      reference: req.reference,
      amount: req.amount,
      balance_after: remaining,
      description: req.description,
    });
    return { granted: req.amount, credits_remaining: remaining, duplicate: false };
  });
}
