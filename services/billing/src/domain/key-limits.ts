import { AppError } from '@mf/errors';

/**
 * A key's limits and counters (migration 0003) as planned within one batch: the caller reads them
 * locked, the batch's operations change them in arrival order, and the caller writes the result in
 * the same transaction as the debits. Pure computation.
 */

export interface KeyState {
  api_key_id: number;
  spend_limit: number | null;
  max_concurrent_jobs: number | null;
  /** First day of the month `spent` counts, YYYY-MM-DD. */
  period_start: string;
  spent: number;
  active: number;
}

/** A charge made with a key: what its refund gives back, and whether its job still counts as running. */
export interface KeyCharge {
  reference: string;
  api_key_id: number;
  period_start: string;
  amount: number;
  active: boolean;
}

export const SPEND_LIMIT_REACHED = 'Spend limit of this API key reached';
export const TOO_MANY_CONCURRENT_JOBS = 'Too many concurrent jobs for this API key';
/** Seconds a client over the concurrent-jobs limit is told to wait (jobs take seconds to minutes). */
export const CONCURRENCY_RETRY_AFTER_S = 5;

export function spendLimitReached(required: number, remaining: number): AppError {
  return new AppError('payment_required', {
    error: SPEND_LIMIT_REACHED,
    credits_required: required,
    credits_remaining: remaining,
  });
}

export function tooManyConcurrentJobs(): AppError {
  return AppError.rateLimited(TOO_MANY_CONCURRENT_JOBS, CONCURRENCY_RETRY_AFTER_S);
}

/** What is left of a key's monthly spend limit (null: no limit). */
export function spendRemaining(key: Pick<KeyState, 'spend_limit' | 'spent'>): number | null {
  return key.spend_limit === null ? null : Math.max(0, key.spend_limit - key.spent);
}

export class KeyCounters {
  private readonly keys = new Map<number, KeyState>();
  private readonly charges = new Map<string, KeyCharge>();
  private readonly changedKeys = new Set<number>();
  private readonly newCharges = new Set<string>();
  private readonly closed = new Set<string>();
  private readonly period: string;

  /** `period` is the current month's first day (the database's clock): older counters start again. */
  constructor(keys: readonly KeyState[], charges: readonly KeyCharge[], period: string) {
    for (const k of keys) {
      const state = { ...k };
      if (state.period_start !== period) {
        state.period_start = period;
        state.spent = 0;
        this.changedKeys.add(k.api_key_id);
      }
      this.keys.set(k.api_key_id, state);
    }
    for (const c of charges) this.charges.set(c.reference, { ...c });
    this.period = period;
  }

  static none(): KeyCounters {
    return new KeyCounters([], [], '');
  }

  private key(apiKeyId: number): KeyState {
    let state = this.keys.get(apiKeyId);
    if (!state) {
      // lock_batch creates a row for every charging key; a missing one is a key with no limits yet.
      state = {
        api_key_id: apiKeyId,
        spend_limit: null,
        max_concurrent_jobs: null,
        period_start: this.period,
        spent: 0,
        active: 0,
      };
      this.keys.set(apiKeyId, state);
    }
    return state;
  }

  /** Why a charge of `amount` with the key must be refused (rate limited, then payment required), or null. */
  refusal(apiKeyId: number, amount: number): AppError | null {
    const k = this.key(apiKeyId);
    if (k.max_concurrent_jobs !== null && k.active >= k.max_concurrent_jobs) return tooManyConcurrentJobs();
    const remaining = spendRemaining(k);
    if (remaining !== null && amount > remaining) return spendLimitReached(amount, remaining);
    return null;
  }

  charged(reference: string, apiKeyId: number, amount: number): void {
    const k = this.key(apiKeyId);
    k.spent += amount;
    k.active += 1;
    this.changedKeys.add(apiKeyId);
    this.charges.set(reference, {
      reference,
      api_key_id: apiKeyId,
      period_start: k.period_start,
      amount,
      active: true,
    });
    this.newCharges.add(reference);
  }

  /** A refund gives the month's spend back (when charged this month) and ends the job. */
  refunded(reference: string): void {
    const c = this.charges.get(reference);
    if (!c) return;
    const k = this.key(c.api_key_id);
    if (c.period_start === k.period_start) k.spent = Math.max(0, k.spent - c.amount);
    this.changedKeys.add(c.api_key_id);
    this.released(reference);
  }

  /** The job of `reference` ended: it no longer counts against the concurrent-jobs limit. Once. */
  released(reference: string): boolean {
    const c = this.charges.get(reference);
    if (!c?.active) return false;
    c.active = false;
    const k = this.key(c.api_key_id);
    k.active = Math.max(0, k.active - 1);
    this.changedKeys.add(c.api_key_id);
    if (!this.newCharges.has(reference)) this.closed.add(reference);
    return true;
  }

  /** What to write: every changed key's counters, the new key charges (final state), the ended old ones. */
  changes(): { keys: KeyState[]; newCharges: KeyCharge[]; ended: string[] } {
    return {
      keys: [...this.changedKeys].map((id) => this.key(id)),
      newCharges: [...this.newCharges].map((r) => this.charges.get(r) as KeyCharge),
      ended: [...this.closed],
    };
  }
}
