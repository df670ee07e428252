import { billingRpc, type AccountReply, type AccountRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { Bus, BusUnavailableError, RpcTimeoutError, type RpcContext, type RpcHandlers } from '../src';
import { encode, envelope } from '../src/codec';
import { accountReply, eventually, rawConnection, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

/** Fake billing: in-memory balances; every handler records what it was asked. */
function fakeBilling(balances: Record<number, number> = { 1: 100 }) {
  const account = jest.fn(async (req: AccountRequest, _ctx: RpcContext): Promise<AccountReply> => {
    const credits = balances[req.user_id];
    if (credits === undefined) throw AppError.notFound('No such user');
    return accountReply(credits);
  });
  const charge = jest.fn(async (req: { user_id: number; amount: number }) => {
    const remaining = balances[req.user_id] ?? 0;
    if (remaining < req.amount) throw AppError.insufficientCredits(req.amount, remaining);
    balances[req.user_id] = remaining - req.amount;
    return { charged: req.amount, credits_remaining: balances[req.user_id], duplicate: false };
  });
  const handlers: RpcHandlers<typeof billingRpc> = {
    account,
    charge,
    refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
    grant: async (req) => ({ granted: req.amount, credits_remaining: req.amount, duplicate: false }),
    ledger: async () => ({ entries: [], has_more: false }),
  };
  return { handlers, account, charge };
}

describe('Bus RPC', () => {
  const { vhost: currentVhost, pool } = useVhostAndBuses();

  /** A billing server and a jobs client on two separate connections. */
  async function serverAndClient(billing = fakeBilling()) {
    const server = pool.create('billing');
    void server.serveRpc(billingRpc, billing.handlers);
    await server.start(); // attaches the consumer before resolving
    const client = pool.create('jobs', { rpcTimeoutMs: 20_000 });
    await client.start();
    return { server, client, ...billing };
  }

  describe('with a server consuming', () => {
    it('answers a call from another connection with the handler result', async () => {
      const { client, account } = await serverAndClient(fakeBilling({ 1: 250 }));

      const reply = await client.rpc(billingRpc, 'account', { user_id: 1 });

      expect(reply).toEqual(accountReply(250));
      expect(account).toHaveBeenCalledTimes(1);
      expect(account.mock.calls[0][0]).toEqual({ user_id: 1 });
      const ctx = account.mock.calls[0][1];
      expect(ctx.deadline).toBeGreaterThan(Date.now() - 20_000);
    });

    it('passes the caller correlation id to the handler', async () => {
      const { client, account } = await serverAndClient();

      await client.rpc(billingRpc, 'account', { user_id: 1 }, { correlationId: 'req-abc-123' });

      expect(account.mock.calls[0][1].correlationId).toBe('req-abc-123');
    });

    it('serves concurrent calls, each reply reaching its own caller', async () => {
      const balances = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [i + 1, (i + 1) * 10]));
      const { client } = await serverAndClient(fakeBilling(balances));

      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => client.rpc(billingRpc, 'account', { user_id: i + 1 })),
      );

      expect(replies.map((r) => r.credits_remaining)).toEqual(Array.from({ length: 30 }, (_, i) => (i + 1) * 10));
    });

    it('rethrows a typed AppError from the handler at the caller with its status and body', async () => {
      const { client } = await serverAndClient(fakeBilling({ 1: 10 }));

      const err = await client
        .rpc(billingRpc, 'charge', { user_id: 1, amount: 50, reference: 'job:abc' })
        .catch((e: unknown) => e);

      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({
        kind: 'payment_required',
        body: { error: 'Insufficient credits', credits_required: 50, credits_remaining: 10 },
      });
      expect((err as AppError).body).toEqual({
        error: 'Insufficient credits',
        credits_required: 50,
        credits_remaining: 10,
      });
    });

    it('turns a non-AppError thrown by the handler into a bare 500 without internal detail', async () => {
      const billing = fakeBilling();
      billing.account.mockImplementationOnce(async () => {
        throw new Error('connection to db-primary.internal:5432 refused (password=hunter2)');
      });
      const { client } = await serverAndClient(billing);

      const err = await client.rpc(billingRpc, 'account', { user_id: 1 }).catch((e: unknown) => e);

      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('internal');
      expect((err as AppError).body).toEqual({ error: 'Internal error' });
      expect(JSON.stringify({ ...(err as AppError), message: (err as AppError).message })).not.toMatch(
        /db-primary|hunter2/,
      );
    });

    it('rejects a request that violates the contract schema without calling the handler', async () => {
      const { client, account } = await serverAndClient();

      // The compiler would refuse this call; a caller built against an older contract would not.
      const err = await client
        .rpc(billingRpc, 'account', { user_id: 'x' } as unknown as AccountRequest)
        .catch((e: unknown) => e);

      expect(err).toBeInstanceOf(AppError);
      expect(err).not.toBeInstanceOf(RpcTimeoutError);
      expect((err as AppError).kind).toBe('internal');
      expect((err as AppError).body).toEqual({ error: 'Internal error' });
      expect(account).not.toHaveBeenCalled();
      // The server is still serving after the rejection.
      await expect(client.rpc(billingRpc, 'account', { user_id: 1 })).resolves.toEqual(accountReply(100));
    });

    it('answers a method the server does not serve (an older version mid-upgrade) with a bare 500', async () => {
      // The gateway's batched job reads fall back to single reads on exactly this answer.
      const { ledger: _newer, ...olderMethods } = billingRpc.methods;
      const older = { ...billingRpc, methods: olderMethods };
      const server = pool.create('billing');
      void server.serveRpc(older, fakeBilling().handlers);
      await server.start();
      const client = pool.create('jobs', { rpcTimeoutMs: 20_000 });
      await client.start();

      const err = await client.rpc(billingRpc, 'ledger', { user_id: 1, limit: 10 }).catch((e: unknown) => e);

      expect(err).toBeInstanceOf(AppError);
      expect(err).not.toBeInstanceOf(RpcTimeoutError);
      expect([(err as AppError).kind, (err as AppError).body]).toEqual(['internal', { error: 'Internal error' }]);
      await expect(client.rpc(billingRpc, 'account', { user_id: 1 })).resolves.toEqual(accountReply(100));
    });

    it('drops a request whose x-deadline has passed even when the broker still delivers it', async () => {
      const { client, account } = await serverAndClient();
      const { conn, ch } = await rawConnection(currentVhost().url);
      try {
        const replyQueue = (await ch.assertQueue('', { exclusive: true })).queue;
        const late = envelope('billing.account', 1, { user_id: 1 }, { correlationId: 'late' });
        // No broker TTL, only the deadline header: the server itself has to refuse it.
        ch.sendToQueue(billingRpc.queue, encode(late), {
          correlationId: 'late',
          replyTo: replyQueue,
          type: 'billing.account',
          headers: { 'x-deadline': Date.now() - 1000 },
        });
        // A fresh call queued behind it: once it is answered, the late one has been dealt with.
        await client.rpc(billingRpc, 'account', { user_id: 1 }, { correlationId: 'fresh' });

        expect(account.mock.calls.map(([, ctx]) => ctx.correlationId)).toEqual(['fresh']);
        expect(await ch.get(replyQueue)).toBe(false); // and it sent no reply
        expect((await ch.checkQueue(billingRpc.queue)).messageCount).toBe(0); // nor left it queued
      } finally {
        await conn.close().catch(() => undefined);
      }
    });
  });

  describe('with nobody consuming', () => {
    /** The queue exists (as billing declares it) but no billing process is up. */
    const declareBillingQueue = (bus: Bus): Promise<void> =>
      bus.declare(async (ch) => {
        await ch.assertQueue(billingRpc.queue, { durable: true });
      });

    it('stamps each request with a broker TTL and an x-deadline equal to its timeout', async () => {
      const client = pool.create('jobs');
      await declareBillingQueue(client);
      await client.start();
      const { conn, ch } = await rawConnection(currentVhost().url);
      try {
        const before = Date.now();
        const call = client.rpc(billingRpc, 'account', { user_id: 1 }, { timeoutMs: 15_000 });
        const msg = await eventually('the request in billing.rpc', () => ch.get(billingRpc.queue, { noAck: true }));
        const after = Date.now();

        expect(msg.properties.expiration).toBe('15000');
        const deadline = Number(msg.properties.headers?.['x-deadline']);
        expect(deadline).toBeGreaterThanOrEqual(before + 15_000);
        expect(deadline).toBeLessThanOrEqual(after + 15_000);

        // Answer it by hand on its reply-to, as a server on another connection does.
        ch.sendToQueue(msg.properties.replyTo, encode({ ok: true, result: accountReply(5) }), {
          correlationId: msg.properties.correlationId,
        });
        await expect(call).resolves.toEqual(accountReply(5));
      } finally {
        await conn.close().catch(() => undefined);
      }
    });

    it('times out with a 503 RpcTimeoutError, and a server started later never runs the expired request', async () => {
      const client = pool.create('jobs');
      await declareBillingQueue(client);
      await client.start();

      const started = Date.now();
      const err = await client
        .rpc(billingRpc, 'account', { user_id: 1 }, { timeoutMs: 1000, correlationId: 'expired' })
        .catch((e: unknown) => e);
      const elapsed = Date.now() - started;

      expect(err).toBeInstanceOf(RpcTimeoutError);
      expect(err).toMatchObject({ kind: 'unavailable', method: 'billing.account', timeoutMs: 1000 });
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(15_000);

      // Billing comes up after the caller gave up.
      const billing = fakeBilling();
      const server = pool.create('billing');
      void server.serveRpc(billingRpc, billing.handlers);
      await server.start();
      // A fresh call is queued behind the expired one (if it is still there): once answered, the queue is past it.
      await expect(
        client.rpc(billingRpc, 'account', { user_id: 1 }, { timeoutMs: 20_000, correlationId: 'fresh' }),
      ).resolves.toEqual(accountReply(100));

      expect(billing.account.mock.calls.map(([, ctx]) => ctx.correlationId)).toEqual(['fresh']);
    });

    it('lets an expired request vanish instead of piling up in a dead-letter queue', async () => {
      const client = pool.create('jobs');
      await declareBillingQueue(client);
      await client.start();
      await expect(client.rpc(billingRpc, 'account', { user_id: 1 }, { timeoutMs: 300 })).rejects.toBeInstanceOf(
        RpcTimeoutError,
      );
      const { conn, ch } = await rawConnection(currentVhost().url);
      try {
        // The broker drops an expired message when it reaches the head of the queue.
        await eventually(
          'the expired request to leave the queue',
          async () => (await ch.checkQueue(billingRpc.queue)).messageCount === 0,
        );
        expect(
          await ch.checkQueue(`${billingRpc.queue}.dlq`).then(
            () => 'exists',
            () => 'absent',
          ),
        ).toBe('absent');
      } finally {
        await conn.close().catch(() => undefined);
      }
    });

    it('fails fast with 503 when the target queue does not exist, long before the timeout', async () => {
      const client = pool.create('jobs');
      await client.start();
      const nowhere = { ...billingRpc, queue: 'nobody-home.rpc' };

      const started = Date.now();
      const err = await client.rpc(nowhere, 'account', { user_id: 1 }, { timeoutMs: 20_000 }).catch((e: unknown) => e);

      expect(err).toBeInstanceOf(BusUnavailableError);
      expect(err).not.toBeInstanceOf(RpcTimeoutError);
      expect((err as AppError).kind).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(10_000);
      // The call is forgotten: the bus still works for the next one.
      await expect(client.rpc(nowhere, 'account', { user_id: 1 }, { timeoutMs: 20_000 })).rejects.toBeInstanceOf(
        BusUnavailableError,
      );
    });

    it('refuses a call at once while not connected', async () => {
      const client = pool.create('jobs');

      await expect(client.rpc(billingRpc, 'account', { user_id: 1 })).rejects.toBeInstanceOf(BusUnavailableError);
    });
  });
});
