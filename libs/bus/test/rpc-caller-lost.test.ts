import { billingRpc } from '@mf/contracts';
import { recordingLogger } from '@mf/testing';
import type { RpcHandlers } from '../src';
import { encode, envelope } from '../src/codec';
import {
  accountReply,
  deferred,
  eventually,
  killConnection,
  rawConnection,
  TEST_TIMEOUT_MS,
  useVhostAndBuses,
} from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

/** Billing whose `account` handler records each user it is asked about, and can be held. */
function recordingBilling(hold?: Promise<void>) {
  const seen: number[] = [];
  const handlers: RpcHandlers<typeof billingRpc> = {
    account: async (req) => {
      seen.push(req.user_id);
      if (hold && req.user_id === 7) await hold;
      return accountReply(req.user_id);
    },
    charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
    refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
    grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
    ledger: async () => ({ entries: [], has_more: false }),
  };
  return { seen, handlers };
}

function connections(lines: Record<string, unknown>[]): number {
  return lines.filter((l) => l.msg === 'connected to broker').length;
}

/**
 * The caller of an RPC is gone by the time its reply is sent: its connection dropped, or (in a
 * cluster) the node it was connected to went down. The server must keep serving everyone else.
 */
describe('Bus RPC when the caller is gone before its reply', () => {
  const { vhost, pool } = useVhostAndBuses();

  it('drops the reply to a caller whose connection (and reply queue) is gone, and keeps its own connection', async () => {
    const release = deferred();
    const billing = recordingBilling(release.promise);
    const { logger, lines } = recordingLogger();
    const server = pool.create('billing', { logger });
    void server.serveRpc(billingRpc, billing.handlers);
    await server.start();
    const caller = pool.create('jobs', { rpcTimeoutMs: 20_000 });
    await caller.start();

    const lost = caller.rpc(billingRpc, 'account', { user_id: 7 }).catch((err: unknown) => err);
    await eventually('the held call in its handler', () => billing.seen.includes(7));
    await killConnection(vhost().name, 'jobs');
    await lost;
    release.resolve();

    const other = pool.create('gateway', { rpcTimeoutMs: 20_000 });
    await other.start();
    expect(await other.rpc(billingRpc, 'account', { user_id: 8 })).toEqual(accountReply(8));
    expect(billing.seen).toEqual([7, 8]);
    expect(connections(lines)).toBe(1);
  });

  it('answers a request whose direct reply-to names a node that is gone once, not in a loop, and serves the next', async () => {
    // RabbitMQ 3.10 closes the answering connection (541 INTERNAL_ERROR) when a direct reply-to
    // address names a node it does not know, as it does once the caller's node is down.
    const billing = recordingBilling();
    const { logger, lines } = recordingLogger();
    const server = pool.create('billing', { logger, reconnectMinMs: 100 });
    void server.serveRpc(billingRpc, billing.handlers);
    await server.start();

    const { conn, ch } = await rawConnection(vhost().url);
    try {
      const replyTo = await directReplyToOfAGoneNode(ch);
      const request = envelope('billing.account', 1, { user_id: 7 }, { correlationId: 'gone' });
      ch.sendToQueue(billingRpc.queue, encode(request), {
        correlationId: 'gone',
        replyTo,
        type: 'billing.account',
        headers: { 'x-deadline': Date.now() + 60_000 },
      });
      await eventually('the request handled', () => billing.seen.includes(7));
    } finally {
      await conn.close().catch(() => undefined);
    }

    const caller = pool.create('jobs', { rpcTimeoutMs: 2000 });
    await caller.start();
    const reply = await eventually('a call answered once the server is back', () =>
      caller.rpc(billingRpc, 'account', { user_id: 8 }).catch(() => null),
    );
    expect(reply).toEqual(accountReply(8));
    // Acked before its reply was sent, it was not delivered again to close the connection again.
    expect(billing.seen.filter((u) => u === 7)).toEqual([7]);
    // The broker did close the connection over that reply (the case this guards against), once.
    expect(lines.filter((l) => String(l.err).includes('541')).length).toBe(1);
    expect(connections(lines)).toBe(2);
  });
});

/**
 * A direct reply-to address as the broker hands it out, with the node it names changed to one
 * that is not in the cluster (the pid's node is `reply@<hash of the node name>`).
 */
async function directReplyToOfAGoneNode(ch: import('amqplib').Channel): Promise<string> {
  const { queue } = await ch.assertQueue('', { exclusive: true });
  await ch.consume('amq.rabbitmq.reply-to', () => undefined, { noAck: true });
  ch.sendToQueue(queue, Buffer.from('probe'), { replyTo: 'amq.rabbitmq.reply-to' });
  const probe = await eventually('the probe', () => ch.get(queue, { noAck: true }));
  const real = String(probe.properties.replyTo);
  const match = /^amq\.rabbitmq\.reply-to\.([^.]+)\.(.+)$/.exec(real);
  if (!match) throw new Error(`unexpected direct reply-to address ${real}`);
  const pid = Buffer.from(match[1], 'base64');
  const text = pid.toString('latin1');
  const at = text.indexOf('reply@');
  if (at < 0) throw new Error(`no node in the pid of ${real}`);
  // Same length, other digits: a hash no node of this broker has.
  for (let i = at + 'reply@'.length; i < pid.length && pid[i] >= 0x30 && pid[i] <= 0x39; i++)
    pid[i] = 0x30 + ((pid[i] - 0x30 + 1) % 10);
  return `amq.rabbitmq.reply-to.${pid.toString('base64')}.${match[2]}`;
}
