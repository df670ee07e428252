import type { Knex } from '@mf/db';
import type { LedgerRow, NewEntry } from '../domain/batch';

/** The SQL of a group-committed batch; both statements run inside the caller's transaction. */

export interface LockedState {
  balances: Map<number, number>;
  ledger: LedgerRow[];
}

/** Locks the batch's references and users and reads their state (migration 0002's lock_batch, one round trip). */
export async function lockAndRead(trx: Knex.Transaction, references: string[], users: number[]): Promise<LockedState> {
  const { rows } = await trx.raw<{
    rows: { state: { balances: Record<string, number | string>; ledger: LedgerRow[] } }[];
  }>('SELECT lock_batch(?::text[], ?::bigint[]) AS state', [references, users]);
  const { balances, ledger } = rows[0].state;
  return {
    balances: new Map(Object.entries(balances).map(([user, credits]) => [Number(user), Number(credits)])),
    ledger: ledger.map((r) => ({ ...r, user_id: Number(r.user_id), amount: Number(r.amount) })),
  };
}

/**
 * Writes a planned batch in one statement: the final balances (rows locked by lockAndRead, so the
 * values are exact) and the new ledger rows. ON CONFLICT is a safety net only: the reference locks
 * and the plan already leave out every repeat.
 */
export async function writeBatch(
  trx: Knex.Transaction,
  balances: Map<number, number>,
  entries: NewEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const users = [...balances.keys()];
  await trx.raw(
    `WITH changed AS (
       UPDATE balances AS b SET credits = v.credits, updated_at = now()
       FROM unnest(?::bigint[], ?::bigint[]) AS v(user_id, credits)
       WHERE b.user_id = v.user_id
     )
     INSERT INTO ledger (user_id, kind, reference, amount, balance_after, description)
     SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::text[])
     ON CONFLICT (reference, kind) DO NOTHING`,
    [
      users,
      users.map((u) => balances.get(u) ?? 0),
      entries.map((e) => e.user_id),
      entries.map((e) => e.kind),
      entries.map((e) => e.reference),
      entries.map((e) => e.amount),
      entries.map((e) => e.balance_after),
      // null stays NULL in the text[] (knex's binding types know no nullable arrays).
      entries.map((e) => e.description) as string[],
    ],
  );
}
