import { jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { eventHandler } from '../src';
import {
  eventually,
  jobCompleted,
  killAndAwaitReconnect,
  management,
  rawConnection,
  TEST_TIMEOUT_MS,
  useVhostAndBuses,
} from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

interface MgmtConnection {
  vhost: string;
  timeout: number;
  client_properties?: { connection_name?: string };
}

describe('Bus connection', () => {
  const { vhost, pool } = useVhostAndBuses();

  it('names its connection after the service and asks the broker for the configured heartbeat', async () => {
    const bus = pool.create('exporter', { heartbeatSec: 7 });
    await bus.start();

    const conn = await eventually('the connection in the management API', async () => {
      const res = await management('GET', `/api/vhosts/${encodeURIComponent(vhost().name)}/connections`);
      const list = (await res.json()) as MgmtConnection[];
      return list.find((c) => c.client_properties?.connection_name === 'exporter');
    });
    expect(conn.timeout).toBe(7);
  });

  it('re-declares its queues and bindings and re-attaches its consumers on every reconnect', async () => {
    const queue = 'test.connection.redeclared';
    const handled: string[] = [];
    const consumer = pool.create('webhooks');
    void consumer.declare(async (ch) => {
      await ch.assertExchange('test.connection.extra', 'fanout', { durable: false });
    });
    void consumer.consume({
      queue,
      bindings: [ROUTING_KEYS.jobAll],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: eventHandler(jobEvents.completed, async (p) => (handled.push(p.job_id), 'ack')),
      },
    });
    await consumer.start();
    const publisher = pool.create('jobs');
    await publisher.start();

    // An operator deletes the queue and the extra exchange: only a re-declaration brings them back.
    const { conn, ch } = await rawConnection(vhost().url);
    try {
      await ch.deleteQueue(queue);
      await ch.deleteExchange('test.connection.extra');
    } finally {
      await conn.close().catch(() => undefined);
    }
    await killAndAwaitReconnect(consumer, vhost(), 'webhooks');

    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'after-reconnect' }));
    await eventually('the event after the reconnect', () => handled.includes('after-reconnect'));
    const check = await rawConnection(vhost().url);
    try {
      await expect(check.ch.checkExchange('test.connection.extra')).resolves.toBeDefined();
    } finally {
      await check.conn.close().catch(() => undefined);
    }
  });

  it('keeps declaring after the broker refuses one declaration (the closed set-up channel is replaced)', async () => {
    const bus = pool.create('editor');
    await bus.start();
    await bus.declare(async (ch) => {
      await ch.assertExchange('test.connection.clash', 'fanout', { durable: false });
    });

    // The broker closes the channel of a declaration that contradicts an existing exchange.
    await expect(
      bus.declare(async (ch) => {
        await ch.assertExchange('test.connection.clash', 'direct', { durable: false });
      }),
    ).rejects.toThrow(/PRECONDITION_FAILED/);
    await bus.declare(async (ch) => {
      await ch.assertExchange('test.connection.after', 'fanout', { durable: false });
    });

    expect(bus.connected).toBe(true);
    const check = await rawConnection(vhost().url);
    try {
      await expect(check.ch.checkExchange('test.connection.after')).resolves.toBeDefined();
    } finally {
      await check.conn.close().catch(() => undefined);
    }
  });
});
