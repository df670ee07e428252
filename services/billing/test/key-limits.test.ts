import type { Knex } from '@mf/db';
import { silentLogger } from '@mf/testing';
import type { BatchOp, BatchOutcome } from '../src/domain/batch';
import { GroupCommitter } from '../src/usecases/group-commit';
import { grant } from '../src/usecases/grant.usecase';
import { keyLimits, setKeyLimits } from '../src/usecases/key-limits.usecase';
import { refund, useBillingDatabase } from './support/billing-db';

/** A key's limits against the real database, checked in the group-committed batch with the debit. */
describe("billing: an API key's spend limit and concurrent-jobs limit", () => {
  let next = 1;
  const database = useBillingDatabase();
  let db: Knex;
  beforeAll(() => (db = database.db));
  const logger = silentLogger();
  const committer = () => new GroupCommitter(db, { maxBatch: 100, logger });

  /** A user with credits and a key with the given limits. */
  const keyWith = async (credits: number, spend_limit: number | null, max_concurrent_jobs: number | null) => {
    const user = next++;
    const key = 1000 + user;
    await grant(db, { user_id: user, amount: credits, reference: `grant:seed-${user}` });
    await setKeyLimits(db, { user_id: user, api_key_id: key, spend_limit, max_concurrent_jobs });
    return { user, key };
  };
  const charge = (user_id: number, api_key_id: number, reference: string, amount: number): BatchOp => ({
    kind: 'charge',
    req: { user_id, reference, amount, api_key_id },
  });
  const release = (user_id: number, reference: string): BatchOp => ({ kind: 'release', req: { user_id, reference } });
  const outcomeKinds = (outcomes: BatchOutcome[]) => outcomes.map((o) => (o.ok ? 'ok' : o.error.kind));
  const limitsOf = async (user: number, key: number) =>
    (await keyLimits(db, { user_id: user, api_key_ids: [key] })).keys[0];

  it('lets parallel charges of one key through only up to its spend limit, with the 402 saying what is left', async () => {
    const { user, key } = await keyWith(10_000, 1000, null);
    const c = committer();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => c.submit(charge(user, key, `job:cap-${user}-${i}`, 300))),
    );
    expect(outcomeKinds(outcomes)).toEqual([...Array(3).fill('ok'), ...Array(27).fill('payment_required')]);
    for (const o of outcomes.slice(3))
      expect(!o.ok && o.error.body).toEqual({
        error: 'Spend limit of this API key reached',
        credits_required: 300,
        credits_remaining: 100,
      });
    expect(await limitsOf(user, key)).toEqual({
      api_key_id: key,
      spend_limit: 1000,
      max_concurrent_jobs: null,
      spent_this_period: 900,
      active_jobs: 3,
    });
    const balance = await db('balances').first('credits').where({ user_id: user });
    expect(Number(balance?.credits)).toBe(10_000 - 900);
  });

  it('never lets two replicas together pass the spend limit of one key', async () => {
    const { user, key } = await keyWith(10_000, 500, null);
    const [a, b] = [committer(), committer()];
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).submit(charge(user, key, `job:two-${user}-${i}`, 50))),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
    expect((await limitsOf(user, key)).spent_this_period).toBe(500);
  });

  it('lets parallel submits of one key run only up to its concurrent-jobs limit, with 429 and Retry-After', async () => {
    const { user, key } = await keyWith(10_000, null, 3);
    const c = committer();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => c.submit(charge(user, key, `job:conc-${user}-${i}`, 10))),
    );
    expect(outcomeKinds(outcomes)).toEqual([...Array(3).fill('ok'), ...Array(7).fill('rate_limited')]);
    const refused = outcomes[5];
    expect(!refused.ok && refused.error.details).toEqual({ retryAfterSec: 5 });
    expect((await limitsOf(user, key)).active_jobs).toBe(3);
  });

  it('frees a slot when a job ends, once however often its end is told', async () => {
    const { user, key } = await keyWith(10_000, null, 1);
    const c = committer();
    expect((await c.submit(charge(user, key, `job:e1-${user}`, 10))).ok).toBe(true);
    expect(outcomeKinds([await c.submit(charge(user, key, `job:e2-${user}`, 10))])).toEqual(['rate_limited']);
    await Promise.all([c.submit(release(user, `job:e1-${user}`)), c.submit(release(user, `job:e1-${user}`))]);
    expect((await c.submit(charge(user, key, `job:e2-${user}`, 10))).ok).toBe(true);
    expect((await limitsOf(user, key)).active_jobs).toBe(1);
    // A late refund of the ended job gives its credits back but frees no second slot.
    await c.submit(refund(user, `job:e1-${user}`));
    expect(await limitsOf(user, key)).toMatchObject({ active_jobs: 1, spent_this_period: 10 });
  });

  it('gives the spend limit back on refund, in order with the charges of the same batch', async () => {
    const { user, key } = await keyWith(10_000, 100, null);
    const c = committer();
    expect((await c.submit(charge(user, key, `job:r1-${user}`, 100))).ok).toBe(true);
    const outcomes = await Promise.all([
      c.submit(charge(user, key, `job:r2-${user}`, 100)), // over the limit
      c.submit(refund(user, `job:r1-${user}`)), // gives the 100 back
      c.submit(refund(user, `job:r1-${user}`)), // a repeat: nothing more
      c.submit(charge(user, key, `job:r3-${user}`, 100)), // fits again
      c.submit(charge(user, key, `job:r4-${user}`, 1)), // over again
    ]);
    expect(outcomeKinds(outcomes)).toEqual(['payment_required', 'ok', 'ok', 'ok', 'payment_required']);
    expect(await limitsOf(user, key)).toMatchObject({ spent_this_period: 100, active_jobs: 1 });
    const rows = await db('key_charges').select('reference', 'active').where({ api_key_id: key }).orderBy('reference');
    expect(rows).toEqual([
      { reference: `job:r1-${user}`, active: false },
      { reference: `job:r3-${user}`, active: true },
    ]);
  });

  it('counts the spend of a key without limits, so a limit set later applies to the whole month', async () => {
    const user = next++;
    const key = 1000 + user;
    await grant(db, { user_id: user, amount: 1000, reference: `grant:seed-${user}` });
    const c = committer();
    expect((await c.submit(charge(user, key, `job:l1-${user}`, 400))).ok).toBe(true);
    await setKeyLimits(db, { user_id: user, api_key_id: key, spend_limit: 500, max_concurrent_jobs: null });
    const over = await c.submit(charge(user, key, `job:l2-${user}`, 200));
    expect(!over.ok && over.error.body).toMatchObject({ credits_remaining: 100 });
  });

  it("refuses to set limits on another user's key, and shows zeros for a key never charged", async () => {
    const { key } = await keyWith(10, 5, null);
    await expect(
      setKeyLimits(db, { user_id: 99_999, api_key_id: key, spend_limit: null, max_concurrent_jobs: null }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    expect(await keyLimits(db, { user_id: 99_999, api_key_ids: [key] })).toEqual({
      keys: [{ api_key_id: key, spend_limit: null, max_concurrent_jobs: null, spent_this_period: 0, active_jobs: 0 }],
    });
  });
});
