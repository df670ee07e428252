import type { Knex } from '@mf/db';
import { silentLogger } from '@mf/testing';
import { GroupCommitter } from '../src/usecases/group-commit';
import { balanceOf, charge, refund, seedUser, outcomeKinds, useBillingDatabase } from './support/billing-db';
import { setKeyLimits } from '../src/usecases/key-limits.usecase';

/**
 * Pipelined group commit against the real database: several batches in flight at once (the next
 * starts once the previous holds its locks) keep every guarantee of batches committed one by one.
 */
describe('billing group commit, batches pipelined', () => {
  let nextUser = 1;
  const database = useBillingDatabase();
  let db: Knex;
  beforeAll(() => (db = database.db));
  const logger = silentLogger();
  /** Small batches, so that a few operations already spread over several batches in flight. */
  const committer = (maxBatch = 2, maxInFlight = 3) => new GroupCommitter(db, { maxBatch, maxInFlight, logger });

  const userWith = (credits: number): Promise<number> => seedUser(db, nextUser++, credits);
  const balance = (userId: number) => balanceOf(db, userId);
  const charges = async (userId: number) =>
    (
      await db('ledger')
        .select('reference', 'amount', 'balance_after')
        .where({ user_id: userId, kind: 'charge' })
        .orderBy('id')
    ).map((r) => ({ reference: r.reference as string, balance_after: Number(r.balance_after) }));

  it("applies a hot user's charges spread over batches in flight in arrival order: only the ones that would overspend get the 402", async () => {
    const userId = await userWith(1000);
    const c = committer();
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => c.submit(charge(userId, `job:hot-${userId}-${i}`, 30))),
    );
    expect(c.peakInFlight).toBeGreaterThan(1);
    expect(c.stats.batches).toBeGreaterThanOrEqual(20);
    expect(outcomeKinds(outcomes)).toEqual([...Array(33).fill('ok'), ...Array(7).fill('payment_required')]);
    for (const o of outcomes.slice(33))
      expect(!o.ok && o.error.body).toEqual({
        error: 'Insufficient credits',
        credits_required: 30,
        credits_remaining: 10,
      });
    expect(await balance(userId)).toBe(10);
    expect(await charges(userId)).toEqual(
      Array.from({ length: 33 }, (_, i) => ({
        reference: `job:hot-${userId}-${i}`,
        balance_after: 1000 - 30 * (i + 1),
      })),
    );
  });

  it('keeps one ledger row for a reference repeated in two batches in flight, answering the repeat with the first outcome', async () => {
    const userId = await userWith(100);
    const c = committer(1, 3);
    const outcomes = await Promise.all([
      c.submit(charge(userId, `job:rep-${userId}`, 40)),
      c.submit(charge(userId, `job:other-${userId}`, 10)),
      c.submit(charge(userId, `job:rep-${userId}`, 40)),
    ]);
    expect(outcomes.map((o) => o.ok && o.reply)).toEqual([
      { charged: 40, credits_remaining: 60, duplicate: false },
      { charged: 10, credits_remaining: 50, duplicate: false },
      { charged: 40, credits_remaining: 50, duplicate: true },
    ]);
    expect(c.peakInFlight).toBeGreaterThan(1);
    expect((await charges(userId)).map((r) => r.reference)).toEqual([`job:rep-${userId}`, `job:other-${userId}`]);
  });

  it('mixes charges and refunds across batches in flight as if they ran one after the other', async () => {
    const [u1, u2] = [await userWith(100), await userWith(0)];
    const c = committer(1, 3);
    const outcomes = await Promise.all([
      c.submit(charge(u1, `job:m1-${u1}`, 100)),
      c.submit(charge(u1, `job:m2-${u1}`, 50)), // nothing left yet: 402
      c.submit(refund(u1, `job:m1-${u1}`)), // gives the 100 back
      c.submit(charge(u1, `job:m3-${u1}`, 50)), // now paid for
      c.submit(refund(u2, `job:never-${u2}`)), // closes a reference never charged
      c.submit(charge(u2, `job:never-${u2}`, 1)), // so its late charge is refused
    ]);
    expect(outcomeKinds(outcomes)).toEqual(['ok', 'payment_required', 'ok', 'ok', 'ok', 'conflict']);
    expect([await balance(u1), await balance(u2)]).toEqual([50, 0]);
    const rows = await db('ledger').select('kind', 'amount').where({ user_id: u1 }).orderBy('id');
    expect(rows.map((r) => `${r.kind}:${Number(r.amount)}`)).toEqual([
      'grant:100',
      'charge:100',
      'refund:100',
      'charge:50',
    ]);
  });

  it("never passes a key's spend limit or concurrent-jobs limit with parallel submits across batches in flight", async () => {
    const user = await userWith(100_000);
    const [capped, busy] = [5000 + user, 6000 + user];
    await setKeyLimits(db, { user_id: user, api_key_id: capped, spend_limit: 1000, max_concurrent_jobs: null });
    await setKeyLimits(db, { user_id: user, api_key_id: busy, spend_limit: null, max_concurrent_jobs: 4 });
    const c = committer(3, 3);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => c.submit(charge(user, `job:caps-${user}-${i}`, 300, i % 2 ? capped : busy))),
    );
    const ofKey = (odd: number) => outcomes.filter((_, i) => i % 2 === odd);
    expect(outcomeKinds(ofKey(1))).toEqual([...Array(3).fill('ok'), ...Array(17).fill('payment_required')]);
    expect(outcomeKinds(ofKey(0))).toEqual([...Array(4).fill('ok'), ...Array(16).fill('rate_limited')]);
    const limits = await db('key_limits').select('api_key_id', 'spent', 'active').orderBy('api_key_id');
    expect(limits.map((k) => [Number(k.api_key_id), Number(k.spent), Number(k.active)])).toEqual([
      [capped, 900, 3],
      [busy, 1200, 4],
    ]);
    expect(await balance(user)).toBe(100_000 - 7 * 300);
  });

  it('loses no answered charge and answers no uncommitted one when a connection is killed mid-pipeline, keeping arrival order', async () => {
    const userId = await userWith(200);
    const c = committer(2, 3);
    const refs = Array.from({ length: 8 }, (_, i) => `job:kill-${userId}-${i}`);
    // Another transaction writes the second reference's ledger row without committing. The first
    // operation goes alone (nothing else waits yet) and commits; the second batch [1, 2], holding
    // its locks, then waits in its write, and the third [3, 4] queues behind it on the user's row.
    const blocker = await db.transaction();
    await blocker('ledger').insert({
      user_id: userId,
      kind: 'charge',
      reference: refs[1],
      amount: 1,
      balance_after: 0,
    });
    const answered = new Set<number>();
    const pending = refs.map((ref, i) => c.submit(charge(userId, ref, 30)).finally(() => answered.add(i)));
    const waiting = async (): Promise<{ pid: number; query: string }[]> =>
      (
        await db.raw(
          `SELECT pid, query FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
        )
      ).rows;
    const writing = async (except?: number) => {
      for (;;) {
        const found = (await waiting()).find((b) => b.query.includes('INSERT INTO ledger') && b.pid !== except);
        if (found && (except !== undefined || (await waiting()).length >= 2)) return found.pid;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const killed = await writing();
    expect([...answered]).toEqual([0]);
    // The second batch's connection dies mid-write: nothing of it was committed; the third, already
    // holding its locks behind it, must not commit before it either.
    await db.raw('SELECT pg_terminate_backend(?)', [killed]);
    // Its operations are retried one by one, the first again behind the blocker: still unanswered.
    await writing(killed);
    expect([...answered]).toEqual([0]);
    await blocker.rollback();
    const outcomes = await Promise.all(pending);
    // 200 / 30: the first six in arrival order, with the running balance; the last two refused.
    expect(outcomeKinds(outcomes)).toEqual([...Array(6).fill('ok'), 'payment_required', 'payment_required']);
    expect(await charges(userId)).toEqual(
      refs.slice(0, 6).map((reference, i) => ({ reference, balance_after: 200 - 30 * (i + 1) })),
    );
    expect(await balance(userId)).toBe(20);
  });
});
