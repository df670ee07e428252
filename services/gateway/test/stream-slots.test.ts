import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createDb, migrate, type Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { createTestDatabase, freePort, silentLogger, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { streamSlotsFromConfig, type StreamSlotsDeps } from '../src/core/events/stream-slots-from-config';
import type { StreamSlots } from '../src/core/events/stream-limits';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 10;
const PER_USER = 15;
/** Short leases, so a crashed replica's slots expire within the test (renewed every third of it). */
const TTL_MS = 900;
/**
 * Leases that cannot lapse while a test runs, for the tests of counting: on a loaded machine a
 * 900 ms lease can legitimately expire between renewals, and then another stream is rightly admitted.
 */
const HELD_TTL_MS = 120_000;
const REFUSED = {
  kind: 'rate_limited',
  body: { error: `Too many open event streams for this API key (limit ${LIMIT})` },
};
const USER_REFUSED = {
  kind: 'rate_limited',
  body: { error: `Too many open event streams for this user (limit ${PER_USER})` },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A logger that keeps its warnings (a store failure must be visible). */
function recordingLogger(): Logger & { warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  const logger = { warnings, warn: (...args: unknown[]) => warnings.push(args), info: () => undefined };
  return logger as unknown as Logger & { warnings: unknown[][] };
}

const config = (prefix: string, ttlMs = TTL_MS) => ({
  STREAMS_PER_KEY: LIMIT,
  STREAMS_PER_USER: PER_USER,
  STREAM_SLOT_TTL_MS: ttlMs,
  RATE_LIMIT_KEY_PREFIX: prefix,
});

/** A key of its own user (the per-user limit out of the way), or of `user`. */
const own = (key: string, user = `user:of:${key}`) => ({ key, user });

/** Whether `slots` would give `key` a slot now (taken and freed at once when it would). */
async function admits(slots: StreamSlots, key: string): Promise<boolean> {
  try {
    (await slots.acquire(own(key)))();
    return true;
  } catch (err) {
    expect(err).toMatchObject(REFUSED);
    return false;
  }
}

/**
 * Whether `slots` gives `key` a slot now, which it then keeps (open stream). A slot freed just
 * before is freed in the store without being awaited, so a caller expecting one retries this.
 */
async function holds(slots: StreamSlots, key: string): Promise<boolean> {
  try {
    await slots.acquire(own(key));
    return true;
  } catch (err) {
    expect(err).toMatchObject(REFUSED);
    return false;
  }
}

/** The behaviour of the stream limit on every shared store, with two replicas built as main.ts builds them. */
function sharedSlotsBehaviour(replica: (ttlMs: number) => StreamSlots, storeNow: () => Promise<number>): void {
  let n = 0;
  const newKey = () => `key:${randomUUID()}:${++n}`;
  const made: StreamSlots[] = [];
  const two = (ttlMs = HELD_TTL_MS) => {
    const pair = [replica(ttlMs), replica(ttlMs)];
    made.push(...pair);
    return pair;
  };
  afterEach(async () => {
    await Promise.all(made.splice(0).map((s) => s.stop()));
  });

  it('admits 10 streams of a key across both replicas together, then refuses the 11th on either with the 429', async () => {
    const [a, b] = two();
    const key = newKey();
    for (let i = 0; i < LIMIT; i++) await (i % 2 === 0 ? a : b).acquire(own(key));
    await expect(a.acquire(own(key))).rejects.toMatchObject(REFUSED);
    await expect(b.acquire(own(key))).rejects.toMatchObject(REFUSED);
    expect(a.total + b.total).toBe(LIMIT);
    // Another key is not affected.
    expect(await admits(b, newKey())).toBe(true);
  });

  it('admits exactly 10 of 30 streams opened at once over both replicas', async () => {
    const [a, b] = two();
    const key = newKey();
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).acquire(own(key))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LIMIT);
    for (const r of results.filter((x) => x.status === 'rejected')) expect(r.reason).toMatchObject(REFUSED);
  });

  it('frees the slot of a closed stream for either replica, once however often it is freed', async () => {
    const [a, b] = two();
    const key = newKey();
    const releases = [];
    for (let i = 0; i < LIMIT; i++) releases.push(await a.acquire(own(key)));
    const first = releases[0];
    first();
    await eventually('the freed slot', () => admits(b, key));
    first(); // a second free changes nothing
    await eventually('the slot once the probe has freed it', () => holds(b, key));
    await expect(b.acquire(own(key))).rejects.toMatchObject(REFUSED);
  });

  it('keeps the slots of open streams past their lease while their replica renews them', async () => {
    const [a, b] = two(TTL_MS);
    const key = newKey();
    for (let i = 0; i < LIMIT; i++) await a.acquire(own(key));
    const firstExpiry = (await storeNow()) + TTL_MS;
    // The store's clock past every first lease's expiry: only renewals keep them.
    await eventually('the first leases to be past their expiry', async () => (await storeNow()) > firstExpiry);
    await expect(b.acquire(own(key))).rejects.toMatchObject(REFUSED);
  });

  it("admits 15 streams of a user across keys and replicas, then refuses the 16th with the user's 429", async () => {
    const [a, b] = two();
    const user = `user:${newKey()}`;
    const keys = [newKey(), newKey()];
    for (let i = 0; i < PER_USER; i++) await (i % 2 ? a : b).acquire(own(keys[i % 2], user));
    // Neither key is at its own limit: the user's is what refuses, on either replica, for a new key too.
    await expect(a.acquire(own(keys[0], user))).rejects.toMatchObject(USER_REFUSED);
    await expect(b.acquire(own(newKey(), user))).rejects.toMatchObject(USER_REFUSED);
    expect(a.total + b.total).toBe(PER_USER);
    // Another user is not affected.
    expect(await admits(a, newKey())).toBe(true);
  });

  it("gives back the key's slot of a stream the user's limit refused", async () => {
    const [a] = two();
    const user = `user:${newKey()}`;
    for (let i = 0; i < PER_USER; i++) await a.acquire(own(newKey(), user));
    const key = newKey();
    for (let i = 0; i < LIMIT; i++) await expect(a.acquire(own(key, user))).rejects.toMatchObject(USER_REFUSED);
    // Had each refusal kept the key's slot, the key would be full now.
    await eventually("the key's slots given back", () => admits(a, key));
  });

  it("frees a crashed replica's slots once their leases expire (no renewal, nothing freed)", async () => {
    const [a, b] = two(TTL_MS);
    const key = newKey();
    for (let i = 0; i < LIMIT; i++) await a.acquire(own(key));
    await a.stop(); // the crash: a's streams are never closed, its leases never renewed again
    const stopped = await storeNow();
    await expect(b.acquire(own(key))).rejects.toMatchObject(REFUSED);
    await eventually("the crashed replica's leases to expire", () => admits(b, key));
    // Each lease expires TTL_MS after its last renewal, all of them by TTL_MS after the stop (the
    // store's clock); the probe's own slot may still be on its way out, hence a retry per slot.
    await eventually(
      'every lease of the crashed replica past its expiry',
      async () => (await storeNow()) > stopped + TTL_MS,
    );
    for (let i = 0; i < LIMIT; i++) await eventually(`slot ${i + 1} of ${LIMIT}`, () => holds(b, key));
    await expect(b.acquire(own(key))).rejects.toMatchObject(REFUSED);
  });
}

describe('the per-key and per-user stream limits shared by gateway replicas', () => {
  describe('memory (one replica: counted per process)', () => {
    it('admits 10 streams of a key on a replica, refuses the 11th, and knows nothing of other replicas', async () => {
      const deps = { store: 'memory', db: {} as Knex, schema: 'gateway', redis: null, logger: silentLogger() } as const;
      const [a, b] = [0, 1].map(() => streamSlotsFromConfig(config('unused'), deps));
      for (let i = 0; i < LIMIT; i++) await a.acquire(own('k'));
      await expect(a.acquire(own('k'))).rejects.toMatchObject(REFUSED);
      expect(await admits(b, 'k')).toBe(true);
    });

    it("admits 15 streams of a user over several keys on a replica, then refuses the 16th with the user's 429", async () => {
      const deps = { store: 'memory', db: {} as Knex, schema: 'gateway', redis: null, logger: silentLogger() } as const;
      const slots = streamSlotsFromConfig(config('unused'), deps);
      const releases = [];
      for (let i = 0; i < PER_USER; i++) releases.push(await slots.acquire(own(`k${i % 2}`, 'user:1')));
      await expect(slots.acquire(own('k2', 'user:1'))).rejects.toMatchObject(USER_REFUSED);
      releases[0]();
      expect(await slots.acquire(own('k2', 'user:1'))).toEqual(expect.any(Function));
    });
  });

  describe('postgres', () => {
    let database: TestDatabase;
    let dbA: Knex;
    let dbB: Knex;
    let next = 0;

    beforeAll(async () => {
      database = await createTestDatabase();
      dbA = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
      dbB = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
      await migrate(dbA, 'gateway', migrations);
    });
    afterAll(async () => {
      await dbA?.destroy();
      await dbB?.destroy();
      await database?.drop();
    });

    // One pool per replica, as two gateway processes have.
    sharedSlotsBehaviour(
      (ttlMs) =>
        streamSlotsFromConfig(config('unused', ttlMs), {
          store: 'postgres',
          db: next++ % 2 ? dbB : dbA,
          schema: 'gateway',
          redis: null,
          logger: silentLogger(),
        }),
      async () => {
        const { rows } = await dbA.raw<{ rows: Array<{ ms: string }> }>(
          'SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS ms',
        );
        return Number(rows[0].ms);
      },
    );

    it('keeps one row per open stream in gateway.stream_slots, gone when it closes', async () => {
      const slots = streamSlotsFromConfig(config('unused'), {
        store: 'postgres',
        db: dbA,
        schema: 'gateway',
        redis: null,
        logger: silentLogger(),
      });
      const release = await slots.acquire(own('key:rows'));
      expect(await dbA('stream_slots').where({ key: 'key:rows' }).select('key')).toEqual([{ key: 'key:rows' }]);
      release();
      await eventually(
        'the row deleted',
        async () => (await dbA('stream_slots').where({ key: 'key:rows' })).length === 0,
      );
      await slots.stop();
    });

    it('counts streams per process, and logs it, while the database does not answer', async () => {
      const dead = createDb({
        url: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
        schema: 'gateway',
        poolMax: 1,
      });
      const logger = recordingLogger();
      const slots = streamSlotsFromConfig(config('unused'), {
        store: 'postgres',
        db: dead,
        schema: 'gateway',
        redis: null,
        logger,
      });
      try {
        for (let i = 0; i < LIMIT; i++) await slots.acquire(own('k'));
        await expect(slots.acquire(own('k'))).rejects.toMatchObject(REFUSED);
        expect(logger.warnings).toEqual([
          [expect.objectContaining({ store: 'postgres' }), expect.stringContaining('counting streams per process')],
        ]);
      } finally {
        await slots.stop();
        await dead.destroy();
      }
    });
  });

  describe('redis', () => {
    const prefix = `mf-test:${randomUUID()}`;
    const clients: Redis[] = [];
    const deps = (redis: Redis, logger: Logger = silentLogger()): StreamSlotsDeps => ({
      store: 'redis',
      db: {} as Knex,
      schema: 'gateway',
      redis,
      logger,
    });
    let clockClient: Redis | undefined;
    const clock = () => (clockClient ??= new Redis(REDIS_URL));
    // Each replica has its own connection.
    const replica = (ttlMs = TTL_MS) => {
      const client = new Redis(REDIS_URL, { enableOfflineQueue: true });
      clients.push(client);
      return streamSlotsFromConfig(config(prefix, ttlMs), deps(client));
    };

    afterAll(async () => {
      const cleanup = new Redis(REDIS_URL);
      const keys = await cleanup.keys(`${prefix}:*`);
      if (keys.length) await cleanup.del(...keys);
      await cleanup.quit();
      await clockClient?.quit();
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    });

    sharedSlotsBehaviour(replica, async () => {
      const [sec, usec] = await clock().time();
      return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    });

    it("keeps a key's open streams in one sorted set under the prefix, scored by expiry, expiring with its newest lease", async () => {
      const slots = replica();
      await slots.acquire(own('key:set'));
      const inspect = new Redis(REDIS_URL);
      try {
        const set = `${prefix}:streams:key:set`;
        const [, score] = await inspect.zrange(set, 0, -1, 'WITHSCORES');
        const [sec, usec] = await inspect.time();
        const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
        expect(Number(score)).toBeGreaterThan(now);
        expect(Number(score)).toBeLessThanOrEqual(now + TTL_MS);
        expect(await inspect.pttl(set)).toBeGreaterThan(0);
      } finally {
        await inspect.quit();
        await slots.stop();
      }
    });

    it('counts streams per process, and logs it, once its connection is closed', async () => {
      const client = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      await eventually('connected', () => Promise.resolve(client.status === 'ready'));
      client.disconnect();
      const logger = recordingLogger();
      const slots = streamSlotsFromConfig(config(prefix), deps(client, logger));
      try {
        for (let i = 0; i < LIMIT; i++) await slots.acquire(own('k'));
        await expect(slots.acquire(own('k'))).rejects.toMatchObject(REFUSED);
        expect(logger.warnings).toEqual([
          [expect.objectContaining({ store: 'redis' }), expect.stringContaining('counting streams per process')],
        ]);
      } finally {
        await slots.stop();
      }
    });
  });
});
