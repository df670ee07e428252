import { Registry } from 'prom-client';
import { billingRpc, jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { eventHandler } from '../src';
import { accountReply, deferred, eventually, jobCompleted, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

/** label set -> value of one series, e.g. { 'method=billing.account,outcome=ok': 1 }. */
async function series(registry: Registry, name: string, valueName?: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return {};
  const { values } = await metric.get();
  const out: Record<string, number> = {};
  for (const v of values) {
    // A histogram's values carry the name of their series (_bucket, _sum, _count).
    if (valueName !== undefined && (v as { metricName?: string }).metricName !== valueName) continue;
    if (v.labels.le !== undefined) continue;
    const key = Object.entries(v.labels)
      .map(([k, val]) => `${k}=${String(val)}`)
      .join(',');
    out[key] = v.value;
  }
  return out;
}

describe('Bus metrics', () => {
  const { pool } = useVhostAndBuses();

  it('counts outgoing RPC calls by method and outcome, and handled RPC requests by queue, type and outcome', async () => {
    const serverRegistry = new Registry();
    const server = pool.create('billing', { registry: serverRegistry });
    void server.serveRpc(billingRpc, {
      account: async () => accountReply(1),
      charge: async () => Promise.reject(AppError.insufficientCredits(5, 1)),
      refund: async () => Promise.reject(new Error('unused')),
      grant: async () => Promise.reject(new Error('unused')),
      ledger: async () => ({ entries: [], has_more: false }),
    });
    await server.start();
    const clientRegistry = new Registry();
    const client = pool.create('jobs', { registry: clientRegistry, rpcTimeoutMs: 20_000 });
    await client.start();

    await client.rpc(billingRpc, 'account', { user_id: 1 });
    await expect(client.rpc(billingRpc, 'charge', { user_id: 1, amount: 5, reference: 'job:m' })).rejects.toMatchObject(
      { kind: 'payment_required' },
    );
    await expect(
      client.rpc({ ...billingRpc, queue: 'nobody-home.rpc' }, 'account', { user_id: 1 }),
    ).rejects.toMatchObject({ kind: 'unavailable' });

    expect(
      await series(clientRegistry, 'bus_rpc_call_duration_seconds', 'bus_rpc_call_duration_seconds_count'),
    ).toEqual({
      'method=billing.account,outcome=ok': 1,
      'method=billing.charge,outcome=error': 1,
      'method=billing.account,outcome=unavailable': 1,
    });
    expect(await series(serverRegistry, 'bus_messages_handled_total')).toEqual({
      'queue=billing.rpc,type=billing.account,outcome=ok': 1,
      'queue=billing.rpc,type=billing.charge,outcome=status_402': 1,
    });
  });

  it('counts handled events by queue, type and outcome', async () => {
    const registry = new Registry();
    const consumer = pool.create('webhooks', { registry });
    void consumer.consume({
      queue: 'test.metrics.events',
      bindings: [ROUTING_KEYS.jobAll],
      retryDelaysMs: [100],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async (_p, ctx) =>
          ctx.attempt === 1 ? 'retry' : 'ack',
        ),
      },
    });
    await consumer.start();
    const publisher = pool.create('jobs');
    await publisher.start();

    await publisher.publishEvent(jobEvents.completed, jobCompleted());

    const counts = await eventually('a retry then an ack', async () => {
      const got = await series(registry, 'bus_messages_handled_total');
      return got['queue=test.metrics.events,type=job.completed,outcome=ack'] === 1 ? got : null;
    });
    expect(counts).toEqual({
      'queue=test.metrics.events,type=job.completed,outcome=retry': 1,
      'queue=test.metrics.events,type=job.completed,outcome=ack': 1,
    });
  });

  it('reports, at each scrape, the messages waiting in the queues it consumes and in their dead-letter queues', async () => {
    const registry = new Registry();
    const consumer = pool.create('webhooks', { registry });
    const gate = deferred();
    void consumer.consume({
      queue: 'test.metrics.depth',
      bindings: [ROUTING_KEYS.jobAll],
      prefetch: 1,
      handlers: {
        // Held until the gate opens, then dead: the first message stays in hand, the rest wait.
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async () => {
          await gate.promise;
          return 'dead';
        }),
      },
    });
    await consumer.start();
    expect(await series(registry, 'bus_queue_messages_ready')).toEqual({
      'queue=test.metrics.depth': 0,
      'queue=test.metrics.depth.dlq': 0,
    });
    const publisher = pool.create('jobs');
    await publisher.start();
    for (let i = 0; i < 4; i++) await publisher.publishEvent(jobEvents.completed, jobCompleted());

    await eventually('three ready behind the one in hand', async () => {
      const got = await series(registry, 'bus_queue_messages_ready');
      return got['queue=test.metrics.depth'] === 3 && got['queue=test.metrics.depth.dlq'] === 0;
    });
    gate.resolve();
    await eventually('all four dead-lettered', async () => {
      const got = await series(registry, 'bus_queue_messages_ready');
      return got['queue=test.metrics.depth'] === 0 && got['queue=test.metrics.depth.dlq'] === 4;
    });

    // A broker that is gone leaves the series out instead of stalling the scrape.
    await consumer.close();
    expect(await series(registry, 'bus_queue_messages_ready')).toEqual({});
  });
});
