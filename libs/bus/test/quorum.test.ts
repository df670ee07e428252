import { billingRpc, jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { eventHandler } from '../src';
import { accountReply, eventually, jobCompleted, management, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

/** AMQP_QUORUM_QUEUES: the same bus on replicated quorum queues (a replicated broker cluster). */
describe('Bus on quorum queues', () => {
  const { vhost, pool } = useVhostAndBuses();

  it('declares its durable queues as quorum queues, and RPC and broker-held retries work on them', async () => {
    const server = pool.create('billing', { quorumQueues: true });
    await server.start();
    await server.serveRpc(billingRpc, {
      account: async () => accountReply(7),
      charge: async () => Promise.reject(new Error('unused')),
      refund: async () => Promise.reject(new Error('unused')),
      grant: async () => Promise.reject(new Error('unused')),
      ledger: async () => ({ entries: [], has_more: false }),
    });
    const attempts: number[] = [];
    await server.consume({
      queue: 'quorum-test.events',
      bindings: [ROUTING_KEYS.jobAll],
      retryDelaysMs: [100],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(
          jobEvents.completed,
          async (_p, ctx) => (attempts.push(ctx.attempt), ctx.attempt === 1 ? 'retry' : 'ack'),
        ),
      },
    });
    const client = pool.create('jobs');
    await client.start();
    await expect(client.rpc(billingRpc, 'account', { user_id: 1 })).resolves.toEqual(accountReply(7));
    await client.publishEvent(jobEvents.completed, jobCompleted());
    await eventually('the retry on the quorum delay queue', () => attempts.length === 2);
    expect(attempts).toEqual([1, 2]);

    const res = await management('GET', `/api/queues/${encodeURIComponent(vhost().name)}`);
    const queues = (await res.json()) as { name: string; type: string }[];
    const types = Object.fromEntries(queues.map((q) => [q.name, q.type]));
    expect(types).toMatchObject({
      'billing.rpc': 'quorum',
      'quorum-test.events': 'quorum',
      'quorum-test.events.dlq': 'quorum',
      'quorum-test.events.delay.100ms': 'quorum',
    });
  });
});
