import { billingRpc, jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { Bus, BusUnavailableError } from '../src';
import {
  createTestVhost,
  eventually,
  rawConnection,
  silentLogger,
  sleep,
  TEST_TIMEOUT_MS,
  useVhostAndBuses,
} from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

/** Nothing listens on port 1: every connection attempt is refused at once. */
const UNREACHABLE = 'amqp://guest:guest@127.0.0.1:1/';

describe('Bus lifecycle', () => {
  const { vhost: currentVhost, pool } = useVhostAndBuses();

  it('gives up starting after maxConnectAttempts with a 503 BusUnavailableError', async () => {
    const bus = new Bus({
      url: UNREACHABLE,
      service: 'admin-cli',
      logger: silentLogger(),
      maxConnectAttempts: 3,
      reconnectMinMs: 10,
      reconnectMaxMs: 20,
    });

    const err = await bus.start().catch((e: unknown) => e);

    expect(err).toBeInstanceOf(BusUnavailableError);
    expect(err).toMatchObject({ kind: 'unavailable' });
    expect((err as Error).message).toMatch(/cannot reach the broker/);
    expect(bus.connected).toBe(false);
  });

  it('stops a start() that is still retrying when the bus is closed, instead of leaving it pending', async () => {
    const bus = new Bus({
      url: UNREACHABLE,
      service: 'jobs',
      logger: silentLogger(),
      reconnectMinMs: 60_000,
      reconnectMaxMs: 60_000,
    });
    const starting = bus.start().then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await sleep(200); // first attempt refused; now in a long backoff wait

    await bus.close();

    // Settles now, not after the 30-60 s backoff (the test would time out).
    const outcome = await starting;
    expect(outcome).toBeInstanceOf(BusUnavailableError);
    expect(bus.connected).toBe(false);
  });

  it('leaves no connection or consumer behind when closed while its first connection is still opening', async () => {
    const queue = 'test.lifecycle.closed-early';
    const bus = pool.create('webhooks');
    void bus.consume({
      queue,
      bindings: [ROUTING_KEYS.jobAll],
      handlers: { [ROUTING_KEYS.jobCompleted]: { def: jobEvents.completed, handle: async () => 'ack' } },
    });
    const starting = bus.start().then(
      () => 'resolved',
      (e: unknown) => e,
    );

    await bus.close(); // before the connection is up

    expect(await starting).toBeInstanceOf(BusUnavailableError);
    await sleep(500); // room for a late connection to show up, if one were leaking
    expect(bus.connected).toBe(false);
    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      const check = await ch.assertQueue(queue, { durable: true }).catch(() => null);
      // Either the queue was never declared, or nobody consumes it.
      if (check) expect(check.consumerCount).toBe(0);
    } finally {
      await conn.close().catch(() => undefined);
    }
  });

  it('gives up reconnecting after maxConnectAttempts without an unhandled rejection', async () => {
    const own = await createTestVhost();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    const bus = new Bus({
      url: own.url,
      service: 'admin-cli',
      logger: silentLogger(),
      maxConnectAttempts: 2,
      reconnectMinMs: 20,
      reconnectMaxMs: 40,
    });
    try {
      await bus.start();
      await own.drop(); // the broker closes the connection, and every reconnect is refused (no vhost)
      await eventually('the bus to notice', () => !bus.connected);
      await sleep(1500); // a handful of refused attempts, then it gives up
      expect(bus.connected).toBe(false);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await bus.close();
      await own.drop();
    }
  });

  it('fails calls still waiting for a reply when the bus closes, as unavailable', async () => {
    const client = pool.create('jobs');
    void client.declare(async (ch) => {
      await ch.assertQueue('test.lifecycle.silent.rpc', { durable: false });
    });
    await client.start();
    const pending = client
      .rpc({ ...billingRpc, queue: 'test.lifecycle.silent.rpc' }, 'account', { user_id: 1 }, { timeoutMs: 20_000 })
      .catch((e: unknown) => e);

    await client.close();

    const err = await pending;
    expect(err).toBeInstanceOf(BusUnavailableError);
    expect(err).toMatchObject({ kind: 'unavailable', message: 'bus closing' });
    await expect(client.rpc(billingRpc, 'account', { user_id: 1 })).rejects.toBeInstanceOf(BusUnavailableError);
  });
});
