import { Bus } from '@mf/bus';
import { billingRpc } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../migrations';
import { serveBillingRpc } from '../src/messaging/billing-rpc.server';
import { GroupCommitter } from '../src/usecases/group-commit';

/** Billing over the real broker and the real database, as the other services call it. */
describe('billing over RPC', () => {
  let env: TestEnv;
  let db: Knex;
  let server: Bus;
  let client: Bus;
  let nextUser = 1;
  const logger = silentLogger();

  beforeAll(async () => {
    env = await freshTestEnv();
    db = createDb({ url: env.databaseUrl, schema: 'billing', poolMax: 10 });
    await migrate(db, 'billing', migrations);
    server = new Bus({ url: env.amqpUrl, service: 'billing', logger });
    await server.start();
    await serveBillingRpc(server, { db, committer: new GroupCommitter(db, { maxBatch: 100, logger }) }, 100);
    client = new Bus({ url: env.amqpUrl, service: 'jobs', logger, rpcTimeoutMs: 20_000 });
    await client.start();
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await db?.destroy();
    await env?.teardown();
  });

  const newUserWith = async (credits: number): Promise<number> => {
    const userId = nextUser++;
    if (credits > 0)
      await client.rpc(billingRpc, 'grant', { user_id: userId, amount: credits, reference: `grant:seed-${userId}` });
    return userId;
  };

  const ledgerSums = async (userId: number) => {
    const rows: { kind: string; total: number }[] = await db('ledger')
      .select('kind')
      .sum({ total: 'amount' })
      .where({ user_id: userId })
      .groupBy('kind');
    const by = Object.fromEntries(rows.map((r) => [r.kind, Number(r.total)]));
    return { grant: by.grant ?? 0, charge: by.charge ?? 0, refund: by.refund ?? 0 };
  };

  it('lets exactly 10 of 50 concurrent 50-credit charges through a 500-credit balance', async () => {
    const userId = await newUserWith(500);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        client.rpc(billingRpc, 'charge', { user_id: userId, amount: 50, reference: `job:conc-${userId}-${i}` }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).kind).toBe('payment_required');
      expect((r.reason as AppError).body).toEqual({
        error: 'Insufficient credits',
        credits_required: 50,
        credits_remaining: 0,
      });
    }
    const account = await client.rpc(billingRpc, 'account', { user_id: userId });
    expect(account.credits_remaining).toBe(0);
    const sums = await ledgerSums(userId);
    expect(sums).toEqual({ grant: 500, charge: 500, refund: 0 });
    expect(sums.grant - sums.charge + sums.refund).toBe(account.credits_remaining);
  });

  it('refunds a reference once when the refund is requested five times in parallel', async () => {
    const userId = await newUserWith(300);
    await client.rpc(billingRpc, 'charge', { user_id: userId, amount: 120, reference: `job:refund-${userId}` });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        client.rpc(billingRpc, 'refund', { user_id: userId, reference: `job:refund-${userId}` }),
      ),
    );
    expect(replies.filter((r) => !r.duplicate)).toHaveLength(1);
    // Every caller learns the same outcome: what the reference charged.
    expect(replies.map((r) => r.refunded)).toEqual([120, 120, 120, 120, 120]);
    const account = await client.rpc(billingRpc, 'account', { user_id: userId });
    expect(account.credits_remaining).toBe(300);
    expect(await ledgerSums(userId)).toEqual({ grant: 300, charge: 120, refund: 120 });
  });

  it('treats a repeated charge of one reference as the same charge', async () => {
    const userId = await newUserWith(100);
    const first = await client.rpc(billingRpc, 'charge', {
      user_id: userId,
      amount: 40,
      reference: `job:dup-${userId}`,
    });
    const again = await client.rpc(billingRpc, 'charge', {
      user_id: userId,
      amount: 40,
      reference: `job:dup-${userId}`,
    });
    expect(first).toEqual({ charged: 40, credits_remaining: 60, duplicate: false });
    expect(again).toEqual({ charged: 40, credits_remaining: 60, duplicate: true });
  });

  it('refuses to charge a reference that was refunded before it was ever charged', async () => {
    const userId = await newUserWith(100);
    // The crash sweeper refunds a job whose charge never landed...
    const refund = await client.rpc(billingRpc, 'refund', { user_id: userId, reference: `job:late-${userId}` });
    expect(refund).toMatchObject({ refunded: 0, duplicate: false });
    // ...so a stale charge for it arriving later must not take the user's credits.
    await expect(
      client.rpc(billingRpc, 'charge', { user_id: userId, amount: 50, reference: `job:late-${userId}` }),
    ).rejects.toMatchObject({ kind: 'conflict' });
    expect((await client.rpc(billingRpc, 'account', { user_id: userId })).credits_remaining).toBe(100);
  });

  it('answers 402 with the figures when the balance is short, and changes nothing', async () => {
    const userId = await newUserWith(30);
    await expect(
      client.rpc(billingRpc, 'charge', { user_id: userId, amount: 31, reference: `job:short-${userId}` }),
    ).rejects.toMatchObject({
      kind: 'payment_required',
      body: { error: 'Insufficient credits', credits_required: 31, credits_remaining: 30 },
    });
    expect(await ledgerSums(userId)).toEqual({ grant: 30, charge: 0, refund: 0 });
  });

  it('gives a user without a balance record zeros everywhere', async () => {
    const account = await client.rpc(billingRpc, 'account', { user_id: 999_999 });
    expect(account).toMatchObject({ credits_remaining: 0, credits_used_this_period: 0, credits_total_this_period: 0 });
  });

  it('counts kept charges of this period as used, and a refunded charge as not used', async () => {
    const userId = await newUserWith(1000);
    await client.rpc(billingRpc, 'charge', { user_id: userId, amount: 100, reference: `job:used-a-${userId}` });
    await client.rpc(billingRpc, 'charge', { user_id: userId, amount: 200, reference: `job:used-b-${userId}` });
    await client.rpc(billingRpc, 'refund', { user_id: userId, reference: `job:used-b-${userId}` });
    const account = await client.rpc(billingRpc, 'account', { user_id: userId });
    expect(account).toMatchObject({
      credits_remaining: 900,
      credits_used_this_period: 100,
      credits_total_this_period: 1000,
    });
  });

  it('grants once per reference and lists the ledger newest first', async () => {
    const userId = await newUserWith(0);
    await client.rpc(billingRpc, 'grant', { user_id: userId, amount: 70, reference: `grant:once-${userId}` });
    const again = await client.rpc(billingRpc, 'grant', {
      user_id: userId,
      amount: 70,
      reference: `grant:once-${userId}`,
    });
    expect(again).toEqual({ granted: 70, credits_remaining: 70, duplicate: true });
    await client.rpc(billingRpc, 'charge', { user_id: userId, amount: 20, reference: `job:l-${userId}` });
    const { entries } = await client.rpc(billingRpc, 'ledger', { user_id: userId });
    // amount is the size, delta the signed change: a charge takes credits away.
    expect(entries.map((e) => [e.kind, e.amount, e.delta, e.balance_after])).toEqual([
      ['charge', 20, -20, 50],
      ['grant', 70, 70, 70],
    ]);
    await client.rpc(billingRpc, 'refund', { user_id: userId, reference: `job:l-${userId}` });
    expect(
      (await client.rpc(billingRpc, 'ledger', { user_id: userId, limit: 1 })).entries.map((e) => [
        e.kind,
        e.amount,
        e.delta,
        e.balance_after,
      ]),
    ).toEqual([['refund', 20, 20, 70]]);
  });
});
