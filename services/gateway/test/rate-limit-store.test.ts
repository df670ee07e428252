import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createDb, migrate, type Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { createTestDatabase, freePort, silentLogger, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { limiterFromConfig, type ConfiguredLimiter } from '../src/core/ratelimit/limiter-from-config';
import type { RateLimitDecision, RateLimiter } from '../src/core/ratelimit/rate-limiter';
import type { RateLimitConfig } from '../src/core/ratelimit/settings';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 60;

/** The limiters of two gateway replicas sharing one store, built as main.ts builds them. */
interface Replicas {
  a: RateLimiter;
  b: RateLimiter;
}

async function consumeAlternating({ a, b }: Replicas, key: string, n: number): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await (i % 2 === 0 ? a : b).consume(key));
  return out;
}

async function consumeConcurrently({ a, b }: Replicas, key: string, n: number): Promise<RateLimitDecision[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a : b).consume(key)));
}

/** A logger that keeps its warnings (the store failure must be visible). */
function recordingLogger(): Logger & { warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  const logger = { warnings, warn: (...args: unknown[]) => warnings.push(args), info: () => undefined };
  return logger as unknown as Logger & { warnings: unknown[][] };
}

/** The behaviour every shared store must have, whatever it is. */
function sharedStoreBehaviour(replicas: () => Replicas, newKey: () => string): void {
  it('allows 60 requests per key across both replicas together, counting down on each, then refuses the 61st', async () => {
    const { a, b } = replicas();
    const key = newKey();
    const decisions = await consumeAlternating({ a, b }, key, LIMIT);
    expect(decisions.every((d) => d.allowed && d.limit === LIMIT && d.retryAfterSec === 0)).toBe(true);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));

    const refused = await a.consume(key);
    expect(refused).toMatchObject({ allowed: false, limit: LIMIT, remaining: 0 });
    expect(refused.retryAfterSec).toBeGreaterThan(0);
    expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
    expect(refused.resetAtSec).toBeGreaterThan(Date.now() / 1000);
    expect(await b.consume(key)).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('reports the same window end on both replicas', async () => {
    const { a, b } = replicas();
    const key = newKey();
    const [first, second] = await consumeAlternating({ a, b }, key, 2);
    // Each replica adds the store's time-to-live to its own clock: equal up to rounding.
    expect(Math.abs(first.resetAtSec - second.resetAtSec)).toBeLessThanOrEqual(1);
  });

  it('counts each API key on its own', async () => {
    const { a, b } = replicas();
    const busy = newKey();
    const quiet = newKey();
    await consumeAlternating({ a, b }, busy, LIMIT + 1);
    expect(await b.consume(quiet)).toMatchObject({ allowed: true, remaining: LIMIT - 1 });
    expect((await a.consume(busy)).allowed).toBe(false);
  });

  it('counts a batch of points at once and grants only those that fit, across both replicas', async () => {
    const { a, b } = replicas();
    const key = newKey();
    await consumeAlternating({ a, b }, key, LIMIT - 5);
    const batch = await b.consume(key, 8);
    expect(batch).toMatchObject({ allowed: false, granted: 5, remaining: 0 });
    expect(await a.consume(key, 2)).toMatchObject({ allowed: false, granted: 0 });
  });

  it('allows exactly 60 of 100 concurrent requests split over both replicas', async () => {
    const key = newKey();
    const decisions = await consumeConcurrently(replicas(), key, 100);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(LIMIT);
    // Every allowed request saw its own count: the remaining values are 59..0, each once.
    const remaining = decisions
      .filter((d) => d.allowed)
      .map((d) => d.remaining)
      .sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSec > 0)).toBe(true);
  });
}

const config = (overrides: Partial<RateLimitConfig>): RateLimitConfig => ({
  RATE_LIMIT_STORE: 'memory',
  RATE_LIMIT_PER_MINUTE: LIMIT,
  RATE_LIMIT_KEY_PREFIX: `mf-test:${randomUUID()}`,
  ...overrides,
});

describe('rate limit stores shared by two gateway replicas', () => {
  let n = 0;
  const newKey = () => `key:${++n}`;

  describe('postgres', () => {
    let database: TestDatabase;
    // One pool per replica, as two gateway processes have.
    let dbA: Knex;
    let dbB: Knex;
    let replicas: Replicas;

    beforeAll(async () => {
      database = await createTestDatabase();
      dbA = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
      dbB = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
      await migrate(dbA, 'gateway', migrations);
      const shared = config({ RATE_LIMIT_STORE: 'postgres' });
      const [a, b] = await Promise.all(
        [dbA, dbB].map((db) => limiterFromConfig(shared, { db, schema: 'gateway', logger: silentLogger() })),
      );
      replicas = { a: a.limiter, b: b.limiter };
    });
    afterAll(async () => {
      await dbA?.destroy();
      await dbB?.destroy();
      await database?.drop();
    });

    sharedStoreBehaviour(() => replicas, newKey);

    it('keeps one row per key in gateway.rate_limits, refused requests counted', async () => {
      const key = newKey();
      await consumeAlternating(replicas, key, LIMIT + 2);
      const rows = await dbA('rate_limits').select('key', 'points', 'expire').where('key', 'like', `%:${key}`);
      expect(rows).toEqual([
        {
          key: expect.stringMatching(new RegExp(`^mf-test:.*:${key}$`)),
          points: LIMIT + 2,
          expire: expect.any(Number),
        },
      ]);
      expect(rows[0].expire).toBeGreaterThan(Date.now());
      expect(rows[0].expire).toBeLessThanOrEqual(Date.now() + 60_000);
    });

    it('falls back to counting per process, and logs it, when the database cannot be reached', async () => {
      const database2 = await createTestDatabase();
      const db = createDb({ url: database2.url, schema: 'gateway', poolMax: 2 });
      await migrate(db, 'gateway', migrations);
      const logger = recordingLogger();
      const { limiter } = await limiterFromConfig(config({ RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PER_MINUTE: 3 }), {
        db,
        schema: 'gateway',
        logger,
      });
      await db.destroy();
      await database2.drop();

      const decisions = await consumeAlternating({ a: limiter, b: limiter }, 'key:1', 4);
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(logger.warnings[0][0]).toEqual({ store: 'postgres', requests: 1 });
    });
  });

  describe('redis', () => {
    let a: ConfiguredLimiter;
    let b: ConfiguredLimiter;
    let prefix: string;

    beforeAll(async () => {
      const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
      await probe.connect().catch((err: Error) => {
        throw new Error(
          `Redis not reachable at ${REDIS_URL} (scripts/test.sh starts one; or set REDIS_URL): ${err.message}`,
        );
      });
      probe.disconnect();
      const shared = config({ RATE_LIMIT_STORE: 'redis', REDIS_URL });
      prefix = shared.RATE_LIMIT_KEY_PREFIX;
      // Each replica has its own connection.
      [a, b] = await Promise.all(
        [0, 1].map(() => limiterFromConfig(shared, { db: {} as Knex, schema: 'gateway', logger: silentLogger() })),
      );
    });
    afterAll(async () => {
      const cleanup = new Redis(REDIS_URL);
      const keys = await cleanup.keys(`${prefix}:*`);
      if (keys.length) await cleanup.del(...keys);
      await cleanup.quit();
      await a?.close();
      await b?.close();
    });

    sharedStoreBehaviour(() => ({ a: a.limiter, b: b.limiter }), newKey);

    it('keeps each counter under the deployment prefix, expiring with the window', async () => {
      const key = newKey();
      await a.limiter.consume(key);
      const inspect = new Redis(REDIS_URL);
      try {
        expect(await inspect.get(`${prefix}:${key}`)).toBe('1');
        const ttl = await inspect.pttl(`${prefix}:${key}`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        await inspect.quit();
      }
    });

    it('falls back to counting per process, and logs it, once its connection is closed', async () => {
      const logger = recordingLogger();
      const closed = await limiterFromConfig(
        config({ RATE_LIMIT_STORE: 'redis', REDIS_URL, RATE_LIMIT_PER_MINUTE: 2 }),
        { db: {} as Knex, schema: 'gateway', logger },
      );
      await closed.close();
      const decisions = await consumeAlternating({ a: closed.limiter, b: closed.limiter }, newKey(), 3);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(logger.warnings.some(([fields]) => (fields as { store?: string }).store === 'redis')).toBe(true);
    });

    it('starts and limits per process when Redis does not answer at all', async () => {
      const port = await freePort();
      const logger = recordingLogger();
      const unreachable = await limiterFromConfig(
        config({ RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: 2 }),
        {
          db: {} as Knex,
          schema: 'gateway',
          logger,
          redisConnectTimeoutMs: 2000,
        },
      );
      try {
        const decisions = await consumeAlternating({ a: unreachable.limiter, b: unreachable.limiter }, newKey(), 3);
        expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
          [true, 1],
          [true, 0],
          [false, 0],
        ]);
        expect(logger.warnings.length).toBeGreaterThan(0);
      } finally {
        await unreachable.close();
      }
    });
  });

  describe('memory (the default)', () => {
    it('counts per process: each replica allows its own 60', async () => {
      const shared = config({ RATE_LIMIT_STORE: 'memory' });
      const [a, b] = await Promise.all(
        [0, 1].map(() => limiterFromConfig(shared, { db: {} as Knex, schema: 'gateway', logger: silentLogger() })),
      );
      const key = newKey();
      const decisions = await consumeAlternating({ a: a.limiter, b: b.limiter }, key, 2 * LIMIT);
      expect(decisions.every((d) => d.allowed)).toBe(true);
      expect((await a.limiter.consume(key)).allowed).toBe(false);
    });
  });
});
