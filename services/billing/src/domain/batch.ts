import type { ChargeReply, ChargeRequest, LedgerKind, RefundReply, RefundRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { KeyCounters } from './key-limits';

/**
 * The rules of charges and refunds applied to a batch, in arrival order, as pure computation: the
 * caller reads the locked state (balances, ledger rows of the batch's references), this decides
 * every operation's outcome and what to write, and the caller writes it in the same transaction.
 * Each operation sees the effects of the ones before it in the batch, exactly as if they had been
 * committed one after the other.
 */

/** A job ended (its terminal event): it stops counting against its key's concurrent-jobs limit. */
export interface ReleaseRequest {
  user_id: number;
  reference: string;
}
export interface ReleaseReply {
  released: boolean;
}

export type BatchOp =
  | { kind: 'charge'; req: ChargeRequest }
  | { kind: 'refund'; req: RefundRequest }
  | { kind: 'release'; req: ReleaseRequest };

export type BatchOutcome =
  { ok: true; reply: ChargeReply | RefundReply | ReleaseReply } | { ok: false; error: AppError };

/** A ledger row of one of the batch's references, as stored. */
export interface LedgerRow {
  reference: string;
  kind: LedgerKind;
  user_id: number;
  amount: number;
}

export interface NewEntry {
  user_id: number;
  kind: 'charge' | 'refund';
  reference: string;
  amount: number;
  balance_after: number;
  description: string | null;
  /** What usage counts a charge under (null on refunds: they count for their charge). */
  model: string | null;
  api_key_id: number | null;
}

export interface BatchPlan {
  /** One per op, in the order given. */
  outcomes: BatchOutcome[];
  /** Final balance of every user whose balance changed. */
  balances: Map<number, number>;
  /** Ledger rows to insert, in order. */
  entries: NewEntry[];
}

/**
 * The users, references and charging keys (with their users) a batch touches: what must be locked
 * and read before planning it. Refunds and releases find their keys in the key charges.
 */
export function batchKeys(ops: readonly BatchOp[]): {
  users: number[];
  references: string[];
  keys: { api_key_id: number; user_id: number }[];
} {
  const users = [...new Set(ops.map((o) => o.req.user_id))].sort((a, b) => a - b);
  const references = [...new Set(ops.map((o) => o.req.reference))].sort();
  const keys = new Map<number, number>();
  for (const o of ops) if (o.kind === 'charge' && o.req.api_key_id) keys.set(o.req.api_key_id, o.req.user_id);
  return {
    users,
    references,
    keys: [...keys].sort(([a], [b]) => a - b).map(([api_key_id, user_id]) => ({ api_key_id, user_id })),
  };
}

/**
 * Plans a batch. `balances` holds the locked current balance of every user of the batch (0 for a
 * user without one); `existing` the ledger rows of the batch's references; `keys` the locked
 * limits and counters of the batch's keys, which it updates (the caller writes its changes).
 */
export function planBatch(
  ops: readonly BatchOp[],
  balances: ReadonlyMap<number, number>,
  existing: readonly LedgerRow[],
  keys: KeyCounters = KeyCounters.none(),
): BatchPlan {
  const balance = new Map(balances);
  const byReference = new Map<string, LedgerRow[]>();
  const remember = (row: LedgerRow) => byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), row]);
  existing.forEach(remember);
  const changed = new Set<number>();
  const entries: NewEntry[] = [];
  const balanceOf = (userId: number) => balance.get(userId) ?? 0;

  const apply = (op: BatchOp): BatchOutcome => {
    const rows = byReference.get(op.req.reference) ?? [];
    const charged = rows.find((r) => r.kind === 'charge');
    const refunded = rows.find((r) => r.kind === 'refund');
    const userId = op.req.user_id;
    const write = (
      kind: 'charge' | 'refund',
      amount: number,
      after: number,
      description: string | null,
      usage: { model: string | null; api_key_id: number | null } = { model: null, api_key_id: null },
    ) => {
      balance.set(userId, after);
      changed.add(userId);
      entries.push({
        user_id: userId,
        kind,
        reference: op.req.reference,
        amount,
        balance_after: after,
        description,
        ...usage,
      });
      remember({ reference: op.req.reference, kind, user_id: userId, amount });
    };

    if (op.kind === 'release') return { ok: true, reply: { released: keys.released(op.req.reference) } };
    if (op.kind === 'charge') {
      const req = op.req;
      if (charged) {
        if (charged.user_id !== userId || charged.amount !== req.amount)
          return fail(AppError.conflict(`reference ${req.reference} was already charged with different terms`));
        return { ok: true, reply: { charged: charged.amount, credits_remaining: balanceOf(userId), duplicate: true } };
      }
      // A reference closed by a refund (e.g. the crash sweeper's, arriving first) is never charged.
      if (refunded) return fail(AppError.conflict(`reference ${req.reference} is closed (already refunded)`));
      // The key's limits first (429 concurrent jobs, 402 spend limit), then the balance.
      const refusal = req.api_key_id ? keys.refusal(req.api_key_id, req.amount) : null;
      if (refusal) return fail(refusal);
      const current = balanceOf(userId);
      if (current < req.amount) return fail(AppError.insufficientCredits(req.amount, current));
      write('charge', req.amount, current - req.amount, req.description ?? null, {
        model: req.model ?? null,
        api_key_id: req.api_key_id ?? null,
      });
      if (req.api_key_id) keys.charged(req.reference, req.api_key_id, req.amount);
      return { ok: true, reply: { charged: req.amount, credits_remaining: current - req.amount, duplicate: false } };
    }

    const req = op.req;
    if (charged && charged.user_id !== userId)
      return fail(AppError.conflict(`reference ${req.reference} belongs to another user`));
    if (refunded)
      return { ok: true, reply: { refunded: refunded.amount, credits_remaining: balanceOf(userId), duplicate: true } };
    // Never charged: a zero refund closes the reference, so a late charge is refused, not kept.
    const amount = charged?.amount ?? 0;
    const after = balanceOf(userId) + amount;
    write('refund', amount, after, req.reason ?? null);
    keys.refunded(req.reference);
    return { ok: true, reply: { refunded: amount, credits_remaining: after, duplicate: false } };
  };

  const outcomes = ops.map(apply);
  return { outcomes, balances: new Map([...changed].map((u) => [u, balanceOf(u)])), entries };
}

function fail(error: AppError): BatchOutcome {
  return { ok: false, error };
}
