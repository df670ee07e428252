import * as amqp from 'amqplib';
import { billingRpc, type AccountReply, type JobEventPayload } from '@mf/contracts';
import { createTestVhost, infra, silentLogger, type TestVhost } from '@mf/testing';
import { Bus, type BusOptions } from '../src';

export { createTestVhost, silentLogger, type TestVhost };

/** Long enough for a loaded 2-core machine; every wait below polls a condition instead of sleeping. */
export const TEST_TIMEOUT_MS = 30_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `check` until it returns a truthy value (returned) or the deadline passes (throws with `what`). */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<Truthy<T>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(everyMs);
  }
}

/** A promise with its resolve exposed, to hold a handler until the test lets it go. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Creates buses for one test file and closes every one of them (call closeAll in afterEach/afterAll). */
export class BusPool {
  private readonly buses: Bus[] = [];
  constructor(private readonly url: () => string) {}

  /** A bus with test-friendly defaults; not started (register consumers first, then `start()`). */
  create(service: string, opts: Partial<BusOptions> = {}): Bus {
    const bus = new Bus({
      url: this.url(),
      service,
      logger: silentLogger(),
      reconnectMinMs: 100,
      reconnectMaxMs: 1000,
      ...opts,
    });
    this.buses.push(bus);
    return bus;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.buses.splice(0).map((b) => b.close(5000)));
  }
}

/**
 * A fresh vhost and a pool of buses for one describe block: the vhost is created before the tests
 * and dropped after them; every bus of the pool is closed after each test.
 */
export function useVhostAndBuses(): { vhost: () => TestVhost; pool: BusPool } {
  let vhost: TestVhost | undefined;
  const pool = new BusPool(() => vhost!.url);
  beforeAll(async () => {
    vhost = await createTestVhost();
  });
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    await pool.closeAll();
    await vhost?.drop();
  });
  return { vhost: () => vhost!, pool };
}

/** A raw amqplib connection to the test vhost, for publishing and inspecting what the bus would not. */
export async function rawConnection(url: string): Promise<{ conn: amqp.ChannelModel; ch: amqp.Channel }> {
  const conn = await amqp.connect(url);
  conn.on('error', () => undefined);
  const ch = await conn.createChannel();
  ch.on('error', () => undefined);
  return { conn, ch };
}

/** Takes every message currently in `queue` (acked), waiting until at least `atLeast` are there. */
export async function drainQueue(ch: amqp.Channel, queue: string, atLeast: number): Promise<amqp.GetMessage[]> {
  const got: amqp.GetMessage[] = [];
  await eventually(`${atLeast} message(s) in ${queue}`, async () => {
    for (;;) {
      const msg = await ch.get(queue, { noAck: true });
      if (!msg) break;
      got.push(msg);
    }
    return got.length >= atLeast;
  });
  return got;
}

// ------------------------------------------------------------------ management API

interface MgmtConnection {
  name: string;
  vhost: string;
  client_properties?: { connection_name?: string };
}

export async function management(method: string, path: string): Promise<Response> {
  const base = new URL((await infra()).rabbitManagementUrl);
  const auth = Buffer.from(
    `${decodeURIComponent(base.username || 'guest')}:${decodeURIComponent(base.password || 'guest')}`,
  ).toString('base64');
  return fetch(`${base.protocol}//${base.host}${path}`, {
    method,
    headers: { authorization: `Basic ${auth}`, 'x-reason': 'bus integration test' },
  });
}

/** Names of the broker connections that the bus `service` holds in `vhost`. */
export async function connectionsOf(vhost: string, service: string): Promise<string[]> {
  const res = await management('GET', `/api/vhosts/${encodeURIComponent(vhost)}/connections`);
  if (!res.ok) throw new Error(`GET connections: ${res.status}`);
  const list = (await res.json()) as MgmtConnection[];
  return list.filter((c) => c.vhost === vhost && c.client_properties?.connection_name === service).map((c) => c.name);
}

/**
 * Kills the live connection of `service` from the broker side, as an operator or a broker restart
 * would, and returns its name. Waits until the management API lists it first.
 */
export async function killConnection(vhost: string, service: string): Promise<string> {
  const [name] = await eventually(`a broker connection named ${service}`, async () => {
    const names = await connectionsOf(vhost, service);
    return names.length === 1 ? names : null;
  });
  const res = await management('DELETE', `/api/connections/${encodeURIComponent(name)}`);
  if (!res.ok && res.status !== 404) throw new Error(`DELETE connection ${name}: ${res.status}`);
  return name;
}

/**
 * Kills `service`'s broker connection and waits until the bus has noticed and reconnected.
 * The management API lists connections seconds late, so "noticed" is observed through the bus
 * itself: a call left pending on a queue nobody consumes fails as unavailable the moment the bus
 * sees its connection drop (rather than at its timeout), and `connected` turns true again after.
 */
export async function killAndAwaitReconnect(
  bus: Bus,
  vhost: TestVhost,
  service: string,
): Promise<{ killed: string; pendingCallError: unknown }> {
  const probe = { queue: `probe.${service}`, methods: billingRpc.methods };
  const { conn, ch } = await rawConnection(vhost.url);
  try {
    await ch.assertQueue(probe.queue, { durable: false });
  } finally {
    await conn.close().catch(() => undefined);
  }
  const pending = bus.rpc(probe, 'account', { user_id: 1 }, { timeoutMs: 60_000 }).then(
    () => new Error('the probe call was answered'),
    (err: unknown) => err,
  );
  const killed = await killConnection(vhost.name, service);
  const pendingCallError = await pending;
  await eventually(`${service} to reconnect`, () => bus.connected);
  return { killed, pendingCallError };
}

// ------------------------------------------------------------------ fixtures

export function accountReply(credits: number): AccountReply {
  return {
    credits_remaining: credits,
    credits_used_this_period: 0,
    credits_total_this_period: credits,
    period_start: '2030-01-01T00:00:00.000Z',
    period_end: '2030-02-01T00:00:00.000Z',
  };
}

export function jobCompleted(overrides: Partial<JobEventPayload> = {}): JobEventPayload {
  return {
    job_id: 'job_123',
    user_id: 7,
    api_key_id: 3,
    status: 'completed',
    model_id: 'vidgen-2.0',
    upstream_model: 'vidgen/v2/text-to-video',
    type: 'video',
    credits_consumed: 40,
    created_at: '2030-01-01T10:00:00.000Z',
    completed_at: '2030-01-01T10:01:00.000Z',
    result: { video: 'https://cdn.example.com/v/job_123.mp4' },
    error: null,
    ...overrides,
  };
}
