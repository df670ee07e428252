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

export interface EntryFilter {
  limit: number;
  beforeId?: number;
  createdGte?: string;
  createdLte?: string;
}

/** A page of the user's entries, newest first, and whether more follow it. */
export async function listEntries(
  db: Knex,
  userId: number,
  filter: EntryFilter,
): Promise<{ entries: LedgerEntry[]; has_more: boolean }> {
  const q = withUsage(db)
    .select('e.id', 'e.kind', 'e.reference', 'e.amount', 'e.balance_after', 'e.description', 'e.created_at')
    .where('e.user_id', userId)
    .orderBy('e.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId) q.andWhere('e.id', '<', filter.beforeId);
  if (filter.createdGte) q.andWhere('e.created_at', '>=', filter.createdGte);
  // Entries show their instant to the millisecond: one shown at the bound is at or before it.
  if (filter.createdLte)
    q.andWhere('e.created_at', '<', db.raw("?::timestamptz + interval '1 millisecond'", [filter.createdLte]));
  type Row = Omit<LedgerEntry, 'created_at' | 'delta' | 'api_key_id'> & {
    created_at: Date;
    api_key_id: number | string | null;
  };
  const rows = await rowsOf<Row>(q);
  const entries = rows.slice(0, filter.limit).map((r) => ({
    ...r,
    amount: Number(r.amount),
    balance_after: Number(r.balance_after),
    api_key_id: r.api_key_id === null ? null : Number(r.api_key_id),
    delta: signedDelta(r.kind, Number(r.amount)),
    created_at: r.created_at.toISOString(),
  }));
  return { entries, has_more: rows.length > filter.limit };
}

/**
 * The ledger as `e`, each entry with the model and key usage counts it under: a charge's own, a
 * refund's from its reference's charge; rows older than those columns fall back to the
 * reference's prefix (`job`, `turn`, `media`). Grants have neither.
 */
export function withUsage(db: Knex): Knex.QueryBuilder {
  return db('ledger as e')
    .leftJoin('ledger as c', (on) =>
      on.on('c.reference', 'e.reference').andOnVal('c.kind', 'charge').andOnVal('e.kind', 'refund'),
    )
    .select(
      db.raw(
        "CASE WHEN e.kind = 'grant' THEN NULL ELSE COALESCE(c.model, e.model, split_part(e.reference, ':', 1)) END AS model",
      ),
      db.raw('COALESCE(c.api_key_id, e.api_key_id) AS api_key_id'),
    );
}

/** What an entry did to the balance: charges take credits away, refunds and grants add them. */
export function signedDelta(kind: LedgerKind, amount: number): number {
  return kind === 'charge' ? -amount : amount;
}
