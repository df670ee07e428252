import { createDb, type Knex } from '@mf/db';
import { silentLogger } from '@mf/testing';
import { GroupCommitter } from '../src/usecases/group-commit';
import { balanceOf, charge, refund, seedUser, outcomeKinds, useBillingDatabase } from './support/billing-db';

/** Group commit against the real database: the guarantees of one-at-a-time charges, many per transaction. */
describe('billing group commit', () => {
  let nextUser = 1;
  const database = useBillingDatabase();
  let db: Knex;
  beforeAll(() => (db = database.db));
  const logger = silentLogger();
  const committer = (maxBatch = 100) => new GroupCommitter(db, { maxBatch, logger });

  const userWith = (credits: number): Promise<number> => seedUser(db, nextUser++, credits);
  const balance = (userId: number) => balanceOf(db, userId);
  const ledger = (userId: number) =>
    db('ledger').select('kind', 'reference', 'amount', 'balance_after').where({ user_id: userId }).orderBy('id');

  it('commits 100 concurrent charges of one hot user in a few transactions, in arrival order, never overspending', async () => {
    const userId = await userWith(1000);
    const c = committer();
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => c.submit(charge(userId, `job:hot-${userId}-${i}`, 30))),
    );
    // 1000 / 30: the first 33 in arrival order pass, the rest are refused with the balance they saw.
    expect(outcomeKinds(outcomes)).toEqual([...Array(33).fill('ok'), ...Array(67).fill('payment_required')]);
    for (const o of outcomes.slice(33))
      expect(!o.ok && o.error.body).toEqual({
        error: 'Insufficient credits',
        credits_required: 30,
        credits_remaining: 10,
      });
    expect(c.stats.batches).toBeLessThan(10);
    expect(await balance(userId)).toBe(10);
    const rows = await ledger(userId);
    expect(rows.filter((r) => r.kind === 'charge')).toHaveLength(33);
    // Each row's balance_after is the running balance, in the order the charges arrived.
    expect(rows.filter((r) => r.kind === 'charge').map((r) => Number(r.balance_after))).toEqual(
      Array.from({ length: 33 }, (_, i) => 1000 - 30 * (i + 1)),
    );
  });

  it('never overspends when two replicas commit batches of one user at once, and never deadlocks', async () => {
    const userId = await userWith(500);
    const other = await userWith(500);
    const [a, b] = [committer(), committer()];
    const ops = Array.from({ length: 120 }, (_, i) => {
      const user = i % 3 === 0 ? other : userId;
      return (i % 2 ? a : b).submit(charge(user, `job:two-${user}-${i}`, 10));
    });
    const outcomes = await Promise.all(ops);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(40 + 50);
    expect([await balance(userId), await balance(other)]).toEqual([0, 100]);
  });

  it('answers a reference repeated in one batch once, with one ledger row per reference and kind', async () => {
    const userId = await userWith(100);
    const c = committer();
    const outcomes = await Promise.all([
      c.submit(charge(userId, `job:rep-${userId}`, 40)),
      c.submit(charge(userId, `job:rep-${userId}`, 40)),
      c.submit(charge(userId, `job:rep-${userId}`, 40)),
    ]);
    expect(outcomes.map((o) => o.ok && o.reply)).toEqual([
      { charged: 40, credits_remaining: 60, duplicate: false },
      { charged: 40, credits_remaining: 60, duplicate: true },
      { charged: 40, credits_remaining: 60, duplicate: true },
    ]);
    expect(await ledger(userId)).toHaveLength(2); // the grant and one charge
  });

  it('mixes charges and refunds of several users in one batch as if they ran one after the other', async () => {
    const [u1, u2] = [await userWith(100), await userWith(0)];
    const c = committer();
    await c.submit(charge(u1, `job:m1-${u1}`, 100));
    const outcomes = await Promise.all([
      c.submit(charge(u1, `job:m2-${u1}`, 50)), // nothing left yet: 402
      c.submit(refund(u1, `job:m1-${u1}`)), // gives the 100 back
      c.submit(charge(u1, `job:m3-${u1}`, 50)), // now paid for
      c.submit(refund(u2, `job:never-${u2}`)), // closes a reference never charged
      c.submit(charge(u2, `job:never-${u2}`, 1)), // so its late charge is refused
    ]);
    expect(outcomeKinds(outcomes)).toEqual(['payment_required', 'ok', 'ok', 'ok', 'conflict']);
    expect([await balance(u1), await balance(u2)]).toEqual([50, 0]);
    expect((await ledger(u1)).map((r) => `${r.kind}:${Number(r.amount)}`)).toEqual([
      'grant:100',
      'charge:100',
      'refund:100',
      'charge:50',
    ]);
  });

  it('loses nothing when the process dies between commit and answer: the retry finds the committed outcome', async () => {
    const userId = await userWith(300);
    const ops = Array.from({ length: 5 }, (_, i) => charge(userId, `job:crash-${userId}-${i}`, 20));
    // The first process commits its batch, then dies before answering anyone (its answers are dropped).
    const first = committer();
    await Promise.all(ops.map((op) => first.submit(op)));
    // The callers time out and retry with the same references, reaching a restarted process.
    const restarted = committer();
    const retried = await Promise.all(ops.map((op) => restarted.submit(op)));
    expect(retried.map((o) => o.ok && o.reply)).toEqual(
      ops.map(() => ({ charged: 20, credits_remaining: 200, duplicate: true })),
    );
    expect(await balance(userId)).toBe(200);
    expect((await ledger(userId)).filter((r) => r.kind === 'charge')).toHaveLength(5);
  });

  it('answers only once the batch is committed: the outcome is visible to any other connection by then', async () => {
    const userId = await userWith(50);
    const outside = createDb({ url: database.url, schema: 'billing', poolMax: 1 });
    try {
      const outcome = await committer().submit(charge(userId, `job:seen-${userId}`, 50));
      expect(outcome.ok).toBe(true);
      expect(
        await outside('ledger')
          .where({ reference: `job:seen-${userId}` })
          .first('amount'),
      ).toMatchObject({ amount: 50 });
    } finally {
      await outside.destroy();
    }
  });

  it('commits a lone operation at once, in a batch of its own', async () => {
    const userId = await userWith(10);
    const c = committer();
    await c.submit(charge(userId, `job:alone-${userId}`, 5));
    await c.submit(charge(userId, `job:alone2-${userId}`, 5));
    expect(c.stats).toEqual({ batches: 2, operations: 2 });
  });

  it('isolates a failing operation: a batch the database refuses is retried one by one, only the culprit fails', async () => {
    const userId = await userWith(100);
    const c = committer();
    const results = await Promise.allSettled([
      c.submit(charge(userId, `job:ok-${userId}`, 10)),
      // A reference with a NUL cannot be stored (Postgres text): the whole first transaction fails.
      c.submit(charge(userId, `job:bad-${userId}\u0000`, 10)),
      c.submit(charge(userId, `job:ok2-${userId}`, 10)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await balance(userId)).toBe(80);
  });
});
