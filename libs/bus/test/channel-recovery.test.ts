import { billingRpc, jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { recordingLogger } from '@mf/testing';
import { BusUnavailableError, eventHandler, RpcTimeoutError, type RpcHandlers } from '../src';
import { startChannelFaultProxy, type ChannelFaultProxy } from './channel-fault-proxy';
import { accountReply, eventually, jobCompleted, rawConnection, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

const handlers: RpcHandlers<typeof billingRpc> = {
  account: async (req) => accountReply(req.user_id),
  charge: async () => ({ charged: 0, credits_remaining: 0, duplicate: false }),
  refund: async () => ({ refunded: 0, credits_remaining: 0, duplicate: false }),
  grant: async () => ({ granted: 0, credits_remaining: 0, duplicate: false }),
  ledger: async () => ({ entries: [], has_more: false }),
};

/**
 * A channel the broker closes while the connection stays up (a cluster node answering 541
 * INTERNAL_ERROR when a quorum queue loses its leader, or any channel error), or a consumer the
 * broker cancels: the part of the bus on that channel is set up again on the same connection.
 */
describe('Bus channels closed by the broker', () => {
  const { vhost, pool } = useVhostAndBuses();
  let proxy: ChannelFaultProxy;

  beforeEach(async () => {
    proxy = await startChannelFaultProxy(vhost().url);
  });
  afterEach(async () => {
    await pool.closeAll();
    await proxy.close();
  });

  it('serves its quorum RPC queue again after the broker closes its channel with 541, on the same connection', async () => {
    const { logger, lines } = recordingLogger();
    const server = pool.create('billing', { url: proxy.url, quorumQueues: true, logger });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const client = pool.create('jobs');
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(1));

    await eventually('billing consuming through the proxy', () => proxy.consuming('billing.rpc'));
    proxy.closeConsumerChannel('billing.rpc', 541, 'INTERNAL_ERROR');
    await eventually(
      'billing consuming again',
      () => lines.some((l) => l.msg === 'broker channel reopened') && proxy.consuming('billing.rpc'),
    );

    expect(await client.rpc(billingRpc, 'account', { user_id: 2 })).toEqual(accountReply(2));
    expect(proxy.connectionsAccepted()).toBe(1);
    expect(server.connected).toBe(true);
    expect(lines.find((l) => l.msg === 'rpc server channel error')).toMatchObject({
      err: expect.stringContaining('541'),
    });
  });

  it('fails calls waiting on a reply channel the broker closed at once, and calls work again', async () => {
    // Quorum, as the first test declared billing.rpc (a queue's type cannot change).
    const server = pool.create('billing', { quorumQueues: true });
    // The only consumer of its queue that never answers: the call can end only by the channel's loss.
    void server.declare(async (ch) => {
      await ch.assertQueue('probe.silent', { durable: false });
    });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const { logger, lines } = recordingLogger();
    const client = pool.create('jobs', { url: proxy.url, rpcTimeoutMs: 20_000, logger });
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(1));

    const pending = client.rpc({ queue: 'probe.silent', methods: billingRpc.methods }, 'account', { user_id: 9 }).then(
      () => new Error('answered'),
      (err: unknown) => err,
    );
    const replyQueue = await eventually('the reply queue consumed through the proxy', () =>
      proxy.consumedQueues({ bound: false }).find((q) => q.startsWith('amq.gen-')),
    );
    proxy.closeConsumerChannel(replyQueue);
    const err = await pending;
    expect(lines.find((l) => l.msg === 'rpc channel error')).toMatchObject({ err: expect.stringContaining('541') });
    expect(err).toBeInstanceOf(BusUnavailableError);
    expect(err).toMatchObject({ kind: 'unavailable', message: 'broker channel closed' });

    const again = await eventually('a call answered after the reply channel reopened', () =>
      client.rpc(billingRpc, 'account', { user_id: 3 }, { timeoutMs: 2000 }).catch(() => null),
    );
    expect(again).toEqual(accountReply(3));
    expect(proxy.connectionsAccepted()).toBe(1);
  });

  it('replaces a calling channel whose requests vanish while its connection stays up, and calls are answered again', async () => {
    const server = pool.create('billing', { quorumQueues: true });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const { logger, lines } = recordingLogger();
    const client = pool.create('jobs', { url: proxy.url, logger });
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(1));

    // What a node does with a channel still sending to a quorum queue's lost leader: nothing comes back.
    expect(proxy.stallPublishers('billing.rpc')).toBe(1);
    for (const user_id of [2, 3])
      await expect(client.rpc(billingRpc, 'account', { user_id }, { timeoutMs: 300 })).rejects.toBeInstanceOf(
        RpcTimeoutError,
      );

    const again = await eventually('a call answered on a fresh calling channel', () =>
      client.rpc(billingRpc, 'account', { user_id: 4 }, { timeoutMs: 2000 }).catch(() => null),
    );
    expect(again).toEqual(accountReply(4));
    expect(
      lines.some((l) => l.msg === 'rpc calls timed out on a channel that got no reply since; opening a fresh one'),
    ).toBe(true);
    expect(proxy.connectionsAccepted()).toBe(1);
    expect(client.connected).toBe(true);
  });

  it('keeps its calling channel when calls sent together all time out (one silence, as of a server that is down)', async () => {
    const server = pool.create('billing', { quorumQueues: true });
    void server.serveRpc(billingRpc, handlers);
    await server.start();
    const { logger, lines } = recordingLogger();
    const client = pool.create('jobs', { url: proxy.url, logger });
    await client.start();
    expect(await client.rpc(billingRpc, 'account', { user_id: 1 })).toEqual(accountReply(1));

    expect(proxy.stallPublishers('billing.rpc')).toBe(1);
    const together = await Promise.allSettled(
      [2, 3, 4].map((user_id) => client.rpc(billingRpc, 'account', { user_id }, { timeoutMs: 300 })),
    );
    expect(together.map((r) => r.status === 'rejected' && r.reason instanceof RpcTimeoutError)).toEqual([
      true,
      true,
      true,
    ]);
    expect(
      lines.some((l) => l.msg === 'rpc calls timed out on a channel that got no reply since; opening a fresh one'),
    ).toBe(false);
    expect(client.connected).toBe(true);
  });

  it('publishes with confirms again after the broker closes its confirm channel', async () => {
    const handled: string[] = [];
    const consumer = pool.create('webhooks');
    void consumer.consume({
      queue: 'test.channel-recovery.publish',
      bindings: [ROUTING_KEYS.jobCompleted],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async (p) => (handled.push(p.job_id), 'ack')),
      },
    });
    await consumer.start();
    const publisher = pool.create('jobs', { url: proxy.url });
    await publisher.start();
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_before' }));

    proxy.closeConfirmChannel();
    await eventually('a publish confirmed on the reopened channel', () =>
      publisher
        .publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_after' }))
        .then(() => true)
        .catch((err: unknown) => {
          expect(err).toBeInstanceOf(BusUnavailableError);
          return false;
        }),
    );
    await eventually('both events handled', () => handled.includes('job_before') && handled.includes('job_after'));
    expect(proxy.connectionsAccepted()).toBe(1);
  });

  it('consumes events again after the broker closes its consumer channel, and redelivers what was unacked', async () => {
    const handled: string[] = [];
    let holdFirst = true;
    const consumer = pool.create('webhooks', { url: proxy.url, quorumQueues: true });
    void consumer.consume({
      queue: 'test.channel-recovery.events',
      bindings: [ROUTING_KEYS.jobCompleted],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async (p) => {
          handled.push(p.job_id);
          // The first delivery is still being handled when its channel goes: its ack cannot land.
          if (holdFirst) {
            await eventually('the channel closed under the handler', () => !holdFirst, 20_000);
          }
          return 'ack';
        }),
      },
    });
    await consumer.start();
    const publisher = pool.create('jobs');
    await publisher.start();
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_1' }));
    await eventually('the first delivery', () => handled.length === 1);

    proxy.closeConsumerChannel('test.channel-recovery.events');
    holdFirst = false;
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_2' }));
    await eventually(
      'the unacked event redelivered and the new one handled',
      () => handled.filter((id) => id === 'job_1').length === 2 && handled.includes('job_2'),
    );
    expect(proxy.connectionsAccepted()).toBe(1);
  });

  it('consumes again after the broker cancels its consumer (queue deleted), declaring the queue anew', async () => {
    const handled: string[] = [];
    const queue = 'test.channel-recovery.cancelled';
    const consumer = pool.create('webhooks');
    void consumer.consume({
      queue,
      bindings: [ROUTING_KEYS.jobCompleted],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async (p) => (handled.push(p.job_id), 'ack')),
      },
    });
    await consumer.start();
    const publisher = pool.create('jobs');
    await publisher.start();

    const { conn, ch } = await rawConnection(vhost().url);
    try {
      await ch.deleteQueue(queue);
      await eventually(`${queue} declared again`, async () => {
        const check = await conn.createChannel();
        check.on('error', () => undefined);
        return check.checkQueue(queue).then(
          async (ok) => (await check.close(), ok.consumerCount === 1),
          () => false,
        );
      });
    } finally {
      await conn.close().catch(() => undefined);
    }
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_after_cancel' }));
    await eventually('the event handled', () => handled.includes('job_after_cancel'));
  });

  it('gives a broadcast subscriber its queue back after the broker closes its channel, and says so', async () => {
    const received: unknown[] = [];
    let subscribed = 0;
    const subscriber = pool.create('gateway', { url: proxy.url });
    await subscriber.subscribe({
      bindings: [ROUTING_KEYS.jobAll],
      handle: (_key, payload) => received.push(payload),
      onSubscribed: () => subscribed++,
    });
    await subscriber.start();
    const publisher = pool.create('jobs');
    await publisher.start();
    await eventually('the subscription', () => subscribed === 1);

    const queue = await eventually('the subscriber queue', () =>
      proxy.consumedQueues({ bound: true }).find((q) => q.startsWith('amq.gen-')),
    );
    proxy.closeConsumerChannel(queue);
    await eventually('subscribed again', () => subscribed === 2);
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_live' }));
    await eventually('the event received', () => received.some((p) => (p as { job_id: string }).job_id === 'job_live'));
  });
});
