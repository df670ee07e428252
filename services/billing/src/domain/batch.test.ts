import { AppError } from '@mf/errors';
import { batchKeys, planBatch, type BatchOp, type BatchOutcome } from './batch';

const charge = (user_id: number, reference: string, amount: number): BatchOp => ({
  kind: 'charge',
  req: { user_id, reference, amount, description: 'test' },
});
const refund = (user_id: number, reference: string): BatchOp => ({
  kind: 'refund',
  req: { user_id, reference, reason: 'test' },
});
const errorOf = (o: BatchOutcome): AppError => {
  if (o.ok) throw new Error('expected a refusal');
  return o.error;
};

describe('planning a batch of charges and refunds', () => {
  it('applies many charges of one user in arrival order, refusing those the balance no longer covers', () => {
    const ops = [charge(1, 'job:a', 40), charge(1, 'job:b', 40), charge(1, 'job:c', 40), charge(1, 'job:d', 20)];
    const plan = planBatch(ops, new Map([[1, 100]]), []);
    expect(plan.outcomes.map((o) => (o.ok ? o.reply : errorOf(o).body))).toEqual([
      { charged: 40, credits_remaining: 60, duplicate: false },
      { charged: 40, credits_remaining: 20, duplicate: false },
      { error: 'Insufficient credits', credits_required: 40, credits_remaining: 20 },
      { charged: 20, credits_remaining: 0, duplicate: false },
    ]);
    expect(errorOf(plan.outcomes[2]).kind).toBe('payment_required');
    expect(plan.balances).toEqual(new Map([[1, 0]]));
    expect(plan.entries.map((e) => [e.reference, e.amount, e.balance_after])).toEqual([
      ['job:a', 40, 60],
      ['job:b', 40, 20],
      ['job:d', 20, 0],
    ]);
  });

  it('treats a repeated reference in one batch as a repeat: one ledger row, the first outcome again', () => {
    const plan = planBatch(
      [charge(1, 'job:a', 30), charge(1, 'job:a', 30), refund(1, 'job:a'), refund(1, 'job:a')],
      new Map([[1, 100]]),
      [],
    );
    expect(plan.outcomes.map((o) => o.ok && o.reply)).toEqual([
      { charged: 30, credits_remaining: 70, duplicate: false },
      { charged: 30, credits_remaining: 70, duplicate: true },
      { refunded: 30, credits_remaining: 100, duplicate: false },
      { refunded: 30, credits_remaining: 100, duplicate: true },
    ]);
    expect(plan.entries.map((e) => `${e.kind}:${e.reference}`)).toEqual(['charge:job:a', 'refund:job:a']);
  });

  it('answers a charge already committed in an earlier batch with its outcome, moving nothing', () => {
    const plan = planBatch([charge(1, 'job:a', 30)], new Map([[1, 70]]), [
      { reference: 'job:a', kind: 'charge', user_id: 1, amount: 30 },
    ]);
    expect(plan.outcomes[0]).toEqual({ ok: true, reply: { charged: 30, credits_remaining: 70, duplicate: true } });
    expect(plan.entries).toEqual([]);
    expect(plan.balances.size).toBe(0);
  });

  it('refuses a repeat with other terms, a charge of a refunded reference and a refund by another user with 409', () => {
    const existing = [
      { reference: 'job:a', kind: 'charge' as const, user_id: 1, amount: 30 },
      { reference: 'job:b', kind: 'refund' as const, user_id: 1, amount: 0 },
    ];
    const plan = planBatch(
      [charge(1, 'job:a', 31), charge(1, 'job:b', 10), refund(2, 'job:a')],
      new Map([
        [1, 70],
        [2, 0],
      ]),
      existing,
    );
    expect(plan.outcomes.map((o) => errorOf(o).kind)).toEqual(['conflict', 'conflict', 'conflict']);
    expect(plan.entries).toEqual([]);
  });

  it('closes a never-charged reference with a zero refund, so a later charge of it in the same batch is refused', () => {
    const plan = planBatch([refund(1, 'job:x'), charge(1, 'job:x', 10)], new Map([[1, 50]]), []);
    expect(plan.outcomes[0]).toEqual({ ok: true, reply: { refunded: 0, credits_remaining: 50, duplicate: false } });
    expect(errorOf(plan.outcomes[1]).body.error).toBe('reference job:x is closed (already refunded)');
    expect(plan.entries).toEqual([
      {
        user_id: 1,
        kind: 'refund',
        reference: 'job:x',
        amount: 0,
        balance_after: 50,
        description: 'test',
        model: null,
        api_key_id: null,
      },
    ]);
  });

  it('writes the model and key a charge names on its ledger row, for usage to group by', () => {
    const op: BatchOp = {
      kind: 'charge',
      req: { user_id: 1, reference: 'job:m', amount: 10, model: 'imagegen-2', api_key_id: 3 },
    };
    const plan = planBatch([op], new Map([[1, 50]]), []);
    expect(plan.entries).toEqual([
      expect.objectContaining({ kind: 'charge', amount: 10, balance_after: 40, model: 'imagegen-2', api_key_id: 3 }),
    ]);
  });

  it('lets a refund earlier in the batch pay for a charge later in it', () => {
    const existing = [{ reference: 'job:old', kind: 'charge' as const, user_id: 1, amount: 50 }];
    const plan = planBatch(
      [charge(1, 'job:new', 60), refund(1, 'job:old'), charge(1, 'job:new2', 60)],
      new Map([[1, 20]]),
      existing,
    );
    expect(plan.outcomes.map((o) => o.ok)).toEqual([false, true, true]);
    expect(plan.balances).toEqual(new Map([[1, 10]]));
  });

  it('keeps users apart', () => {
    const plan = planBatch(
      [charge(1, 'job:a', 10), charge(2, 'job:b', 10), charge(3, 'job:c', 10)],
      new Map([
        [1, 10],
        [2, 5],
        [3, 0],
      ]),
      [],
    );
    expect(plan.outcomes.map((o) => o.ok)).toEqual([true, false, false]);
    expect(plan.balances).toEqual(new Map([[1, 0]]));
  });

  it('names the users and references to lock, sorted, each once', () => {
    expect(batchKeys([charge(3, 'job:b', 1), charge(1, 'job:a', 1), refund(3, 'job:b')])).toEqual({
      users: [1, 3],
      references: ['job:a', 'job:b'],
      keys: [],
    });
  });

  it('names the keys the charges are made with, sorted, each once with its user', () => {
    const withKey = (user_id: number, reference: string, api_key_id: number): BatchOp => ({
      kind: 'charge',
      req: { user_id, reference, amount: 1, api_key_id },
    });
    expect(batchKeys([withKey(3, 'job:c', 9), withKey(1, 'job:a', 4), withKey(3, 'job:d', 9)]).keys).toEqual([
      { api_key_id: 4, user_id: 1 },
      { api_key_id: 9, user_id: 3 },
    ]);
  });
});
