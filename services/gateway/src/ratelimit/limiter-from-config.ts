import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { fallbackLimiter } from './fallback';
import { postgresStore } from './postgres-store';
import { flexibleRateLimiter, memoryRateLimiter, type RateLimiter } from './rate-limiter';
import { closeRedis, redisClient, redisReady, redisStore } from './redis-store';
import type { RateLimitConfig, RateLimitStoreKind } from './settings';

export interface RateLimitDeps {
  db: Knex;
  /** The gateway's Postgres schema (holds the rate_limits table). */
  schema: string;
  logger: Logger;
  /** How long start-up waits for Redis before serving with the per-process fallback. */
  redisConnectTimeoutMs?: number;
}

export interface ConfiguredLimiter {
  limiter: RateLimiter;
  store: RateLimitStoreKind;
  /** Releases the store's connection (a shutdown step). */
  close: () => Promise<void>;
}

/**
 * The limiter RATE_LIMIT_STORE asks for. `memory` counts per process (the contract's behaviour);
 * `postgres` and `redis` share one count across every gateway replica, falling back to a
 * per-process count while the store fails.
 */
export async function limiterFromConfig(config: RateLimitConfig, deps: RateLimitDeps): Promise<ConfiguredLimiter> {
  const points = config.RATE_LIMIT_PER_MINUTE;
  const store = config.RATE_LIMIT_STORE;
  const keyPrefix = config.RATE_LIMIT_KEY_PREFIX;
  const insurance = () => fallbackLimiter({ points, logger: deps.logger, store });
  switch (store) {
    case 'memory':
      return { limiter: memoryRateLimiter(points), store, close: async () => undefined };
    case 'postgres':
      // The gateway's pool: no extra connections, and the store is as available as the gateway's own data.
      return { limiter: flexibleRateLimiter(postgresStore({ db: deps.db, schema: deps.schema, points, keyPrefix, insurance: insurance() }), points), store, close: async () => undefined };
    case 'redis': {
      if (!config.REDIS_URL) throw new Error('REDIS_URL is required with RATE_LIMIT_STORE=redis');
      const client = redisClient(config.REDIS_URL, deps.logger);
      if (!(await redisReady(client, deps.redisConnectTimeoutMs ?? 5000))) deps.logger.warn('rate-limit store: Redis not reachable at start; counting per process until it is');
      return { limiter: flexibleRateLimiter(redisStore({ client, points, keyPrefix, insurance: insurance() }), points), store, close: () => closeRedis(client) };
    }
  }
}
