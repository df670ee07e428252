import { billingRpc, type AccountRequest } from '@mf/contracts';
import { BusUnavailableError, type RpcHandlers } from '../src';
import { accountReply, killAndAwaitReconnect, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

describe('Bus reconnect', () => {
  const { vhost: currentVhost, pool } = useVhostAndBuses();

  it('reconnects by itself after the broker kills either side, and RPC works again', async () => {
    const seen: number[] = [];
    const handlers: RpcHandlers<typeof billingRpc> = {
      account: async (req: AccountRequest) => {
        seen.push(req.user_id);
        return accountReply(req.user_id * 10);
      },
      charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
      refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
      grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
      ledger: async () => ({ entries: [], has_more: false }),
    };
    const server = pool.create('billing', { reconnectMinMs: 100 });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const client = pool.create('jobs', { rpcTimeoutMs: 20_000, reconnectMinMs: 100 });
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(10));

    // 1. The client's connection is killed: its pending call fails at once as unavailable (503)
    //    instead of waiting out its timeout, and the bus comes back by itself.
    const clientKill = await killAndAwaitReconnect(client, currentVhost(), 'jobs');
    expect(clientKill.pendingCallError).toBeInstanceOf(BusUnavailableError);
    expect(clientKill.pendingCallError).toMatchObject({ kind: 'unavailable', message: 'broker connection lost' });
    expect(await client.rpc(billingRpc, 'account', { user_id: 2 })).toEqual(accountReply(20));

    // 2. The server's connection is killed: it reconnects and re-attaches its consumer.
    const serverKill = await killAndAwaitReconnect(server, currentVhost(), 'billing');
    expect(serverKill.pendingCallError).toBeInstanceOf(BusUnavailableError);
    expect(await client.rpc(billingRpc, 'account', { user_id: 3 })).toEqual(accountReply(30));

    expect(seen).toEqual([1, 2, 3]);
  });

  it('keeps a call made while the server is down in the durable queue and serves it once the server is back', async () => {
    const seen: number[] = [];
    const server = pool.create('billing', { reconnectMinMs: 100 });
    void server.serveRpc(billingRpc, {
      account: async (req) => {
        seen.push(req.user_id);
        return accountReply(req.user_id);
      },
      charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
      refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
      grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
      ledger: async () => ({ entries: [], has_more: false }),
    });
    await server.start();
    const client = pool.create('jobs', { rpcTimeoutMs: 20_000 });
    await client.start();
    await client.rpc(billingRpc, 'account', { user_id: 1 });

    await server.close();
    const during = client.rpc(billingRpc, 'account', { user_id: 2 });
    const restarted = pool.create('billing');
    void restarted.serveRpc(billingRpc, {
      account: async (req) => {
        seen.push(req.user_id);
        return accountReply(req.user_id * 100);
      },
      charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
      refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
      grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
      ledger: async () => ({ entries: [], has_more: false }),
    });
    await restarted.start();

    await expect(during).resolves.toEqual(accountReply(200));
    expect(seen).toEqual([1, 2]);
  });
});
