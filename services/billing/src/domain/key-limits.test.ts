import type { AppError } from '@mf/errors';
import { planBatch, type BatchOp, type BatchOutcome } from './batch';
import { KeyCounters, type KeyState } from './key-limits';

const KEY = 7;
const charge = (reference: string, amount: number, api_key_id: number | null = KEY): BatchOp => ({
  kind: 'charge',
  req: { user_id: 1, reference, amount, api_key_id },
});
const refund = (reference: string): BatchOp => ({ kind: 'refund', req: { user_id: 1, reference } });
const release = (reference: string): BatchOp => ({ kind: 'release', req: { user_id: 1, reference } });
const key = (over: Partial<KeyState> = {}): KeyState => ({
  api_key_id: KEY,
  spend_limit: null,
  max_concurrent_jobs: null,
  period_start: '2026-11-01',
  spent: 0,
  active: 0,
  ...over,
});
const shown = (o: BatchOutcome): unknown => (o.ok ? o.reply : { kind: o.error.kind, ...o.error.body });
const errorOf = (o: BatchOutcome): AppError => {
  if (o.ok) throw new Error('expected a refusal');
  return o.error;
};

describe("a key's spend limit and concurrent-jobs limit within a batch", () => {
  it('refuses the charge that would take the key over its monthly spend limit, saying what is left under it', () => {
    const counters = new KeyCounters([key({ spend_limit: 100, spent: 30 })], [], '2026-11-01');
    const plan = planBatch(
      [charge('job:a', 50), charge('job:b', 50), charge('job:c', 20)],
      new Map([[1, 1000]]),
      [],
      counters,
    );
    expect(plan.outcomes.map(shown)).toEqual([
      { charged: 50, credits_remaining: 950, duplicate: false },
      {
        kind: 'payment_required',
        error: 'Spend limit of this API key reached',
        credits_required: 50,
        credits_remaining: 20,
      },
      { charged: 20, credits_remaining: 930, duplicate: false },
    ]);
    expect(counters.changes().keys).toEqual([key({ spend_limit: 100, spent: 100, active: 2 })]);
  });

  it('starts the spend count again in a new month', () => {
    const counters = new KeyCounters(
      [key({ spend_limit: 100, spent: 100, period_start: '2026-10-01' })],
      [],
      '2026-11-01',
    );
    const plan = planBatch([charge('job:a', 100)], new Map([[1, 1000]]), [], counters);
    expect(plan.outcomes[0].ok).toBe(true);
    expect(counters.changes().keys[0]).toMatchObject({ period_start: '2026-11-01', spent: 100 });
  });

  it('answers 429 with Retry-After past the concurrent-jobs limit, and frees a slot when a job ends', () => {
    const counters = new KeyCounters([key({ max_concurrent_jobs: 2 })], [], '2026-11-01');
    const plan = planBatch(
      [
        charge('job:a', 1),
        charge('job:b', 1),
        charge('job:c', 1),
        release('job:a'),
        release('job:a'),
        charge('job:d', 1),
      ],
      new Map([[1, 1000]]),
      [],
      counters,
    );
    expect(plan.outcomes.map((o) => (o.ok ? 'ok' : o.error.kind))).toEqual([
      'ok',
      'ok',
      'rate_limited',
      'ok',
      'ok',
      'ok',
    ]);
    expect(errorOf(plan.outcomes[2]).details).toEqual({ retryAfterSec: 5 });
    expect(errorOf(plan.outcomes[2]).body).toEqual({
      error: 'Too many concurrent jobs for this API key',
      retry_after: 5,
    });
    expect(plan.outcomes[3]).toEqual({ ok: true, reply: { released: true } });
    expect(plan.outcomes[4]).toEqual({ ok: true, reply: { released: false } });
    const changes = counters.changes();
    expect(changes.keys[0]).toMatchObject({ active: 2, spent: 3 });
    // job:a was charged in this batch: it is written once, already ended.
    expect(changes.newCharges.map((c) => [c.reference, c.active])).toEqual([
      ['job:a', false],
      ['job:b', true],
      ['job:d', true],
    ]);
    expect(changes.ended).toEqual([]);
  });

  it('gives the spend and the slot back on refund, once, for a charge of an earlier batch', () => {
    const counters = new KeyCounters(
      [key({ spend_limit: 100, max_concurrent_jobs: 1, spent: 100, active: 1 })],
      [{ reference: 'job:a', api_key_id: KEY, period_start: '2026-11-01', amount: 100, active: true }],
      '2026-11-01',
    );
    const ledger = [{ reference: 'job:a', kind: 'charge' as const, user_id: 1, amount: 100 }];
    const plan = planBatch(
      [charge('job:b', 100), refund('job:a'), refund('job:a'), charge('job:b', 100)],
      new Map([[1, 900]]),
      ledger,
      counters,
    );
    expect(plan.outcomes.map((o) => (o.ok ? 'ok' : o.error.kind))).toEqual(['rate_limited', 'ok', 'ok', 'ok']);
    const changes = counters.changes();
    expect(changes.keys[0]).toMatchObject({ spent: 100, active: 1 });
    expect(changes.ended).toEqual(['job:a']);
  });

  it('does not give back spend of a charge made in an earlier month', () => {
    const counters = new KeyCounters(
      [key({ spend_limit: 100, spent: 40, active: 1, period_start: '2026-11-01' })],
      [{ reference: 'job:old', api_key_id: KEY, period_start: '2026-10-01', amount: 60, active: true }],
      '2026-11-01',
    );
    planBatch(
      [refund('job:old')],
      new Map([[1, 0]]),
      [{ reference: 'job:old', kind: 'charge', user_id: 1, amount: 60 }],
      counters,
    );
    expect(counters.changes().keys[0]).toMatchObject({ spent: 40, active: 0 });
  });

  it('checks no key limit for a charge without a key, and keeps the balance check after the limits', () => {
    const counters = new KeyCounters([key({ spend_limit: 10 })], [], '2026-11-01');
    const plan = planBatch([charge('turn:a', 50, null), charge('job:b', 50)], new Map([[1, 60]]), [], counters);
    expect(plan.outcomes.map(shown)).toEqual([
      { charged: 50, credits_remaining: 10, duplicate: false },
      {
        kind: 'payment_required',
        error: 'Spend limit of this API key reached',
        credits_required: 50,
        credits_remaining: 10,
      },
    ]);
    expect(counters.changes().keys).toEqual([]);
  });
});
