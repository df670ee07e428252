import { rowOf, rowsOf, type Knex } from '@mf/db';
import type { LedgerEntry, LedgerKind } from '@mf/contracts';

/** The only module that speaks SQL for billing. Every function runs inside the caller's transaction. */

interface ReferenceRow {
  kind: LedgerKind;
  user_id: number;
  amount: number;
}

/**
 * Serialises every operation on one reference (charge vs refund racing), without blocking other
 * references: a transaction-scoped advisory lock keyed by the reference's hash.
 */
export async function lockReference(trx: Knex.Transaction, reference: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [reference]);
}

export async function findByReference(trx: Knex.Transaction, reference: string): Promise<ReferenceRow[]> {
  return trx('ledger').select('kind', 'user_id', 'amount').where({ reference });
}

export async function balanceOf(db: Knex | Knex.Transaction, userId: number): Promise<number> {
  const row = await rowOf<{ credits: number }>(db('balances').first('credits').where({ user_id: userId }));
  return row ? Number(row.credits) : 0;
}

/** Adds credits, creating the balance record on first use. Returns the new balance. */
export async function credit(trx: Knex.Transaction, userId: number, amount: number): Promise<number> {
  const rows = await rowsOf<{ credits: number }>(
    trx('balances')
      .insert({ user_id: userId, credits: amount })
      .onConflict('user_id')
      .merge({ credits: trx.raw('balances.credits + excluded.credits'), updated_at: trx.fn.now() })
      .returning('credits'),
  );
  return Number(rows[0].credits);
}

export async function insertEntry(
  trx: Knex.Transaction,
  entry: {
    user_id: number;
    kind: LedgerKind;
    reference: string;
    amount: number;
    balance_after: number;
    description?: string | null;
  },
): Promise<void> {
  await trx('ledger').insert({ ...entry, description: entry.description ?? null });
}

/** Credits charged in [from, to) whose reference has not been refunded. */
export async function usedInPeriod(db: Knex, userId: number, from: Date, to: Date): Promise<number> {
  const row = await rowOf<{ used: number | string | null }>(
    db('ledger as c')
      .first(db.raw('COALESCE(SUM(c.amount), 0)::bigint AS used'))
      .where('c.user_id', userId)
      .andWhere('c.kind', 'charge')
      .andWhere('c.created_at', '>=', from)
      .andWhere('c.created_at', '<', to)
      .whereNotExists(
        db('ledger as r').select(db.raw('1')).whereRaw('r.reference = c.reference').andWhere('r.kind', 'refund'),
      ),
  );
  return Number(row?.used ?? 0);
}

export async function listEntries(db: Knex, userId: number, limit: number, beforeId?: number): Promise<LedgerEntry[]> {
  const q = db('ledger')
    .select('id', 'kind', 'reference', 'amount', 'balance_after', 'description', 'created_at')
    .where({ user_id: userId })
    .orderBy('id', 'desc')
    .limit(limit);
  if (beforeId) q.andWhere('id', '<', beforeId);
  const rows = await rowsOf<Omit<LedgerEntry, 'created_at' | 'delta'> & { created_at: Date }>(q);
  return rows.map((r) => ({ ...r, delta: signedDelta(r.kind, r.amount), created_at: r.created_at.toISOString() }));
}

/** What an entry did to the balance: charges take credits away, refunds and grants add them. */
export function signedDelta(kind: LedgerKind, amount: number): number {
  return kind === 'charge' ? -amount : amount;
}
