import { pipelined, type RawConnection } from '@mf/db';
import type { LedgerRow, NewEntry } from '../domain/batch';
import type { KeyCharge, KeyState } from '../domain/key-limits';

/**
 * The SQL of a group-committed batch: two round trips on one connection of the pool, each a
 * simple-protocol query of two statements (BEGIN + lock_batch, then the write + COMMIT), instead
 * of four (BEGIN, lock_batch, write, COMMIT). On one hot user every batch waits for the previous
 * one's COMMIT on the balance row, so the round trips while the row is locked are the cost.
 * Values are inlined as literals (sql-literal.ts): a simple query takes no parameters.
 */

export interface LockedState {
  balances: Map<number, number>;
  ledger: LedgerRow[];
  keys: KeyState[];
  keyCharges: KeyCharge[];
  /** The database's current month, YYYY-MM-DD of its first day. */
  period: string;
}

interface RawState {
  balances: Record<string, number | string>;
  ledger: LedgerRow[];
  keys: KeyState[];
  key_charges: KeyCharge[];
  period: string;
}

/**
 * Opens the batch's transaction, locks its references, users and keys and reads their state
 * (migration 0003's lock_batch): one round trip.
 */
export async function beginAndLock(
  conn: RawConnection,
  references: string[],
  users: number[],
  keys: { api_key_id: number; user_id: number }[] = [],
): Promise<LockedState> {
  const [, locked] = await pipelined(conn, [
    { text: 'BEGIN' },
    {
      name: 'billing_lock_batch',
      text: 'SELECT lock_batch($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS state',
      values: [references, users, keys.map((k) => k.api_key_id), keys.map((k) => k.user_id)],
    },
  ]);
  const rows = locked as { state: RawState }[];
  const { balances, ledger, keys: keyRows, key_charges, period } = rows[0].state;
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    balances: new Map(Object.entries(balances).map(([user, credits]) => [Number(user), Number(credits)])),
    ledger: ledger.map((r) => ({ ...r, user_id: Number(r.user_id), amount: Number(r.amount) })),
    keys: keyRows.map((k) => ({
      ...k,
      api_key_id: Number(k.api_key_id),
      spend_limit: num(k.spend_limit),
      max_concurrent_jobs: num(k.max_concurrent_jobs),
      spent: Number(k.spent),
      active: Number(k.active),
    })),
    keyCharges: key_charges.map((c) => ({ ...c, api_key_id: Number(c.api_key_id), amount: Number(c.amount) })),
    period,
  };
}

export interface KeyChanges {
  keys: KeyState[];
  newCharges: KeyCharge[];
  ended: string[];
}

/**
 * Writes a planned batch in one statement and commits, in one round trip: the final balances and
 * key counters (rows locked by beginAndLock, so the values are exact), the new ledger rows, the
 * new key charges (in their final state) and the end of older ones. ON CONFLICT is a safety net
 * only: the reference locks and the plan already leave out every repeat. If the write fails, the
 * COMMIT after it finds the transaction aborted and rolls it back.
 */
export async function writeAndCommit(
  conn: RawConnection,
  balances: Map<number, number>,
  entries: NewEntry[],
  keys: KeyChanges = { keys: [], newCharges: [], ended: [] },
): Promise<void> {
  if (entries.length === 0 && keys.keys.length === 0) {
    await conn.query('COMMIT');
    return;
  }
  const users = [...balances.keys()];
  const text = `WITH changed AS (
       UPDATE balances AS b SET credits = v.credits, updated_at = now()
       FROM unnest($1::bigint[], $2::bigint[]) AS v(user_id, credits)
       WHERE b.user_id = v.user_id
     ), key_counters AS (
       UPDATE key_limits AS k SET period_start = v.period_start, spent = v.spent, active = v.active, updated_at = now()
       FROM unnest($3::bigint[], $4::date[], $5::bigint[], $6::integer[]) AS v(api_key_id, period_start, spent, active)
       WHERE k.api_key_id = v.api_key_id
     ), key_charged AS (
       INSERT INTO key_charges (reference, api_key_id, period_start, amount, active)
       SELECT * FROM unnest($7::text[], $8::bigint[], $9::date[], $10::bigint[], $11::boolean[])
       ON CONFLICT (reference) DO NOTHING
     ), key_ended AS (
       UPDATE key_charges SET active = false WHERE reference = ANY ($12::text[])
     )
     INSERT INTO ledger (user_id, kind, reference, amount, balance_after, description, model, api_key_id)
     SELECT * FROM unnest($13::bigint[], $14::text[], $15::text[], $16::bigint[], $17::bigint[], $18::text[],
                          $19::text[], $20::bigint[])
     ON CONFLICT (reference, kind) DO NOTHING`;
  const values = [
    users,
    users.map((u) => balances.get(u) ?? 0),
    keys.keys.map((k) => k.api_key_id),
    keys.keys.map((k) => k.period_start),
    keys.keys.map((k) => k.spent),
    keys.keys.map((k) => k.active),
    keys.newCharges.map((c) => c.reference),
    keys.newCharges.map((c) => c.api_key_id),
    keys.newCharges.map((c) => c.period_start),
    keys.newCharges.map((c) => c.amount),
    keys.newCharges.map((c) => c.active),
    keys.ended,
    entries.map((e) => e.user_id),
    entries.map((e) => e.kind),
    entries.map((e) => e.reference),
    entries.map((e) => e.amount),
    entries.map((e) => e.balance_after),
    entries.map((e) => e.description),
    entries.map((e) => e.model),
    entries.map((e) => e.api_key_id),
  ];
  await pipelined(conn, [{ name: 'billing_write_batch', text, values }, { text: 'COMMIT' }]);
}
