import { billingRpc } from '@mf/contracts';
import { freePort, recordingLogger } from '@mf/testing';
import type { RpcHandlers } from '../src';
import { accountReply, eventually, killConnection, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

const handlers: RpcHandlers<typeof billingRpc> = {
  account: async (req) => accountReply(req.user_id),
  charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
  refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
  grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
  ledger: async () => ({ entries: [], has_more: false }),
};

/** The same node under another name, so a log line shows which of the two the bus took. */
function byName(url: string, host: string): string {
  const u = new URL(url);
  u.hostname = host;
  return u.toString();
}

function connectedNodes(lines: Record<string, unknown>[]): unknown[] {
  return lines.filter((l) => l.msg === 'connected to broker').map((l) => l.node);
}

describe('Bus over a list of broker nodes', () => {
  const { vhost, pool } = useVhostAndBuses();

  it('starts on the second node when the first does not answer, and serves calls there', async () => {
    const deadPort = await freePort();
    const dead = byName(vhost().url, '127.0.0.1').replace(/:\d+\//, `:${deadPort}/`);
    const { logger, lines } = recordingLogger();
    // A long back-off: were it applied between the two nodes, start() would not finish in the test's time.
    const server = pool.create('billing', { url: `${dead},${vhost().url}`, logger, reconnectMinMs: 600_000 });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const client = pool.create('jobs', { url: `${dead},${vhost().url}`, reconnectMinMs: 600_000 });
    await client.start();

    expect(await client.rpc(billingRpc, 'account', { user_id: 4 })).toEqual(accountReply(4));
    expect(lines.find((l) => l.msg === 'broker node did not answer; trying the next')).toMatchObject({
      node: `amqp://127.0.0.1:${deadPort}/${encodeURIComponent(vhost().name)}`,
    });
    expect(connectedNodes(lines)).toEqual([`amqp://${new URL(vhost().url).host}/${encodeURIComponent(vhost().name)}`]);
  });

  it('moves to the next node when its connection drops, and calls work again', async () => {
    const first = byName(vhost().url, '127.0.0.1');
    const second = byName(vhost().url, 'localhost');
    const { logger, lines } = recordingLogger();
    const server = pool.create('billing', { url: `${first},${second}`, logger });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const client = pool.create('jobs', { rpcTimeoutMs: 20_000 });
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(1));

    await killConnection(vhost().name, 'billing');
    await eventually('billing to reconnect', () => connectedNodes(lines).length === 2 && server.connected);
    const [host1, host2] = connectedNodes(lines).map((n) => new URL(String(n)).hostname);
    expect([host1, host2]).toEqual(['127.0.0.1', 'localhost']);
    expect(await client.rpc(billingRpc, 'account', { user_id: 2 })).toEqual(accountReply(2));
  });
});
