import type { UsageGrouping } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { silentLogger } from '@mf/testing';
import type { BatchOp } from '../src/domain/batch';
import { ledgerEntries } from '../src/usecases/account.usecase';
import { GroupCommitter } from '../src/usecases/group-commit';
import { operatorUsage, usage } from '../src/usecases/usage.usecase';
import { refund, seedUser, useBillingDatabase } from './support/billing-db';

/** Usage and the ledger read back from the real database, and the sums reconcile with the balance. */
describe('billing usage', () => {
  let nextUser = 1;
  const database = useBillingDatabase();
  let db: Knex;
  let committer: GroupCommitter;
  beforeAll(() => {
    db = database.db;
    committer = new GroupCommitter(db, { maxBatch: 10, logger: silentLogger() });
  });

  const charge = (user_id: number, reference: string, amount: number, model: string, api_key_id?: number): BatchOp => ({
    kind: 'charge',
    req: { user_id, reference, amount, model, ...(api_key_id ? { api_key_id } : {}) },
  });
  /** Runs an operation, then dates its ledger row (what a month of activity looks like, made in a test). */
  const at = async (when: string, op: BatchOp): Promise<void> => {
    const outcome = await committer.submit(op);
    if (!outcome.ok) throw outcome.error;
    await db('ledger').where({ reference: op.req.reference, kind: op.kind }).update({ created_at: when });
  };
  const report = (user_id: number, from: string, to: string, group_by: UsageGrouping[]) =>
    usage(db, { user_id, from, to, group_by });
  /** What charges and refunds moved the balance by in [from, to), from the ledger's own rows. */
  const balanceChange = async (userId: number, from: string, to: string): Promise<number> => {
    const rows: { kind: string; amount: string }[] = await db('ledger')
      .select('kind', 'amount')
      .where({ user_id: userId })
      .whereIn('kind', ['charge', 'refund'])
      .andWhere('created_at', '>=', from)
      .andWhere('created_at', '<', to);
    return rows.reduce((sum, r) => sum + (r.kind === 'charge' ? -1 : 1) * Number(r.amount), 0);
  };

  /** A month's activity: two models, two keys, an editor turn, refunds inside and after the range. */
  const month = async (): Promise<number> => {
    const user = await seedUser(db, nextUser++, 10_000);
    await at('2026-03-01T00:00:00Z', charge(user, `job:a-${user}`, 100, 'imagegen-2', 7));
    await at('2026-03-01T23:59:59.999Z', charge(user, `job:b-${user}`, 1135, 'vidgen-2.0', 8));
    await at('2026-03-02T10:00:00Z', refund(user, `job:b-${user}`));
    await at('2026-03-02T11:00:00Z', charge(user, `turn:t-${user}`, 5, 'editor-turn'));
    await at('2026-03-31T23:00:00Z', charge(user, `job:c-${user}`, 50, 'imagegen-2', 8));
    // Refunded after the range's end: the charge counts in March, the refund on April 1st.
    await at('2026-04-01T00:00:01Z', refund(user, `job:c-${user}`));
    return user;
  };

  it('groups charges and refunds by day, model and key, each on the day it was made', async () => {
    const user = await month();
    const march = await report(user, '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z', ['day']);
    expect(march.rows).toEqual([
      { day: '2026-03-01', jobs: 2, credits_charged: 1235, credits_refunded: 0, credits_net: 1235 },
      { day: '2026-03-02', jobs: 1, credits_charged: 5, credits_refunded: 1135, credits_net: -1130 },
      { day: '2026-03-31', jobs: 1, credits_charged: 50, credits_refunded: 0, credits_net: 50 },
    ]);
    expect(march.totals).toEqual({ jobs: 4, credits_charged: 1290, credits_refunded: 1135, credits_net: 155 });

    const byModelKey = await report(user, '2026-03-01T00:00:00.000Z', '2026-04-02T00:00:00.000Z', ['key', 'model']);
    expect(byModelKey.group_by).toEqual(['model', 'key']);
    expect(byModelKey.rows).toEqual([
      { model: 'editor-turn', api_key_id: null, jobs: 1, credits_charged: 5, credits_refunded: 0, credits_net: 5 },
      { model: 'imagegen-2', api_key_id: 7, jobs: 1, credits_charged: 100, credits_refunded: 0, credits_net: 100 },
      { model: 'imagegen-2', api_key_id: 8, jobs: 1, credits_charged: 50, credits_refunded: 50, credits_net: 0 },
      { model: 'vidgen-2.0', api_key_id: 8, jobs: 1, credits_charged: 1135, credits_refunded: 1135, credits_net: 0 },
    ]);
  });

  it('reconciles: over any range credits_net is what charges and refunds took from the balance, and ranges add up', async () => {
    const user = await month();
    const edges = [
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T12:00:00.000Z',
      '2026-03-02T10:00:00.000Z',
      '2026-04-01T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
    ];
    let whole = 0;
    for (let i = 0; i + 1 < edges.length; i++) {
      const r = await report(user, edges[i], edges[i + 1], ['day', 'model', 'key']);
      expect(-r.totals.credits_net).toBe(await balanceChange(user, edges[i], edges[i + 1]));
      whole += r.totals.credits_net;
    }
    const all = await report(user, edges[0], edges[edges.length - 1], ['model']);
    expect(all.totals.credits_net).toBe(whole);
    // Grants apart: the balance is what was granted less the net usage of all time.
    const balance = Number((await db('balances').first('credits').where({ user_id: user }))!.credits);
    expect(balance).toBe(10_000 - whole);
  });

  it('leaves out zero refunds and every other user’s movements', async () => {
    const user = await seedUser(db, nextUser++, 1000);
    const other = await month();
    await at('2026-03-05T00:00:00Z', refund(user, `job:never-charged-${user}`));
    const mine = await report(user, '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z', ['day']);
    expect(mine.rows).toEqual([]);
    expect(mine.totals).toEqual({ jobs: 0, credits_charged: 0, credits_refunded: 0, credits_net: 0 });
    expect((await report(other, '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z', ['day'])).rows).toHaveLength(3);
  });

  it('pages the ledger newest first with has_more and created bounds; a refund names its charge’s model and key', async () => {
    const user = await month();
    const first = await ledgerEntries(db, { user_id: user, limit: 2 });
    expect(first.has_more).toBe(true);
    expect(first.entries.map((e) => [e.kind, e.reference, e.model, e.api_key_id, e.delta])).toEqual([
      ['refund', `job:c-${user}`, 'imagegen-2', 8, 50],
      ['charge', `job:c-${user}`, 'imagegen-2', 8, -50],
    ]);
    const rest = await ledgerEntries(db, { user_id: user, limit: 10, before_id: first.entries[1].id });
    expect(rest.has_more).toBe(false);
    expect(rest.entries.map((e) => e.kind)).toEqual(['charge', 'refund', 'charge', 'charge', 'grant']);
    expect(rest.entries[4]).toMatchObject({ model: null, api_key_id: null, delta: 10_000 });
    // An entry at 10:00:00.000400 shows as 10:00:00.000Z: a bound of that instant holds it.
    await db('ledger')
      .where({ reference: `job:b-${user}`, kind: 'refund' })
      .update({ created_at: '2026-03-02T10:00:00.0004Z' });
    const day2 = await ledgerEntries(db, {
      user_id: user,
      limit: 10,
      created_gte: '2026-03-02T00:00:00.000Z',
      created_lte: '2026-03-02T10:00:00.000Z',
    });
    expect(day2.entries.map((e) => [e.kind, e.reference, e.model])).toEqual([
      ['refund', `job:b-${user}`, 'vidgen-2.0'],
    ]);
  });
  it("sums every user's usage by user or model for the operator, on the same days as their own reports", async () => {
    // A month no other test writes in: the operator's sums cover every user.
    const [a, b] = [await seedUser(db, nextUser++, 10_000), await seedUser(db, nextUser++, 10_000)];
    await at('2027-06-01T08:00:00Z', charge(a, `job:op1-${a}`, 1135, 'vidgen-2.0', 3));
    await at('2027-06-02T08:00:00Z', charge(a, `job:op2-${a}`, 100, 'imagegen-2', 3));
    await at('2027-06-03T08:00:00Z', charge(b, `job:op3-${b}`, 50, 'imagegen-2'));
    await at('2027-06-04T08:00:00Z', refund(b, `job:op3-${b}`));
    await at('2027-06-05T08:00:00Z', charge(b, `turn:op4-${b}`, 5, 'editor-turn'));
    // After the range: not in it.
    await at('2027-07-01T00:00:00Z', charge(b, `job:op5-${b}`, 50, 'imagegen-2'));
    const range = { from: '2027-06-01T00:00:00.000Z', to: '2027-07-01T00:00:00.000Z' };
    expect((await operatorUsage(db, { ...range, by: 'user' })).rows).toEqual([
      { user_id: a, jobs: 2, credits_charged: 1235, credits_refunded: 0, credits_net: 1235 },
      { user_id: b, jobs: 2, credits_charged: 55, credits_refunded: 50, credits_net: 5 },
    ]);
    expect((await operatorUsage(db, { ...range, by: 'model' })).rows).toEqual([
      { model: 'editor-turn', jobs: 1, credits_charged: 5, credits_refunded: 0, credits_net: 5 },
      { model: 'imagegen-2', jobs: 2, credits_charged: 150, credits_refunded: 50, credits_net: 100 },
      { model: 'vidgen-2.0', jobs: 1, credits_charged: 1135, credits_refunded: 0, credits_net: 1135 },
    ]);
    // Each user's own report says the same.
    const own = await report(b, range.from, range.to, ['model']);
    expect(own.totals.credits_net).toBe(5);
  });
});
