import type { AccountReply, LedgerReply, LedgerRequest } from '@mf/contracts';
import type { Knex } from '@mf/db';
import * as ledger from '../repositories/ledger.repository';
import { periodBounds } from './period';

/**
 * The account's counters. used = credits charged this period and not refunded;
 * total = remaining + used, i.e. what the period started with plus what was granted during it.
 * A user with no balance record gets zeros everywhere.
 */
export async function account(db: Knex, userId: number, now = new Date()): Promise<AccountReply> {
  const { start, end } = periodBounds(now);
  const [remaining, used] = await Promise.all([
    ledger.balanceOf(db, userId),
    ledger.usedInPeriod(db, userId, start, end),
  ]);
  return {
    credits_remaining: remaining,
    credits_used_this_period: used,
    credits_total_this_period: remaining + used,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
  };
}

export async function ledgerEntries(db: Knex, req: LedgerRequest): Promise<LedgerReply> {
  return ledger.listEntries(db, req.user_id, {
    limit: req.limit ?? 50,
    beforeId: req.before_id,
    createdGte: req.created_gte,
    createdLte: req.created_lte,
  });
}
