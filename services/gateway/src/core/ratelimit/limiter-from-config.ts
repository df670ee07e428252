import type { Redis } from 'ioredis';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { fallbackLimiter } from './fallback';
import { postgresStore } from './postgres-store';
import { flexibleRateLimiter, type RateLimiter } from './rate-limiter';
import { closeRedis, redisClient, redisReady, redisStore } from './redis-store';
import type { RateLimitConfig, RateLimitStoreKind } from './settings';
import { WINDOW_SEC } from './window';

export interface RateLimitDeps {
  db: Knex;
  /** The gateway's schema (holds the rate_limits table). */
  schema: string;
  logger: Logger;
  /** How long start-up waits for Redis before serving with the per-process fallback. */
  redisConnectTimeoutMs?: number;
}

/** A counting rule of its own: `points` per `durationSec`, its keys kept apart under `name`. */
export interface CounterRule {
  name: string;
  points: number;
  durationSec: number;
}

export interface ConfiguredLimiter {
  /** The per-key API limit. */
  limiter: RateLimiter;
  store: RateLimitStoreKind;
  /** A counter for another rule (the sign-in and sign-up throttles) on the same store. */
  counter: (rule: CounterRule) => RateLimiterAbstract;
  /** The Redis client of RATE_LIMIT_STORE=redis (the stream limit shares it), else null. */
  redis: Redis | null;
  /** Releases the store's connection (a shutdown step). */
  close: () => Promise<void>;
}

/**
 * The counters RATE_LIMIT_STORE asks for. `memory` counts per process (the contract's behaviour);
 * `postgres` and `redis` share one count across every gateway replica, falling back to a
 * per-process count while the store fails.
 */
export async function limiterFromConfig(config: RateLimitConfig, deps: RateLimitDeps): Promise<ConfiguredLimiter> {
  const store = config.RATE_LIMIT_STORE;
  const prefix = config.RATE_LIMIT_KEY_PREFIX;
  const insurance = (rule: CounterRule) =>
    fallbackLimiter({ points: rule.points, durationSec: rule.durationSec, logger: deps.logger, store });
  // The API limit keeps the prefix it always had (counters survive a deploy); other rules add their name.
  const keyPrefix = (rule: CounterRule) => (rule.name === API_RULE ? prefix : `${prefix}:${rule.name}`);
  let counter: (rule: CounterRule) => RateLimiterAbstract;
  let close = (): Promise<void> => Promise.resolve();
  let redis: Redis | null = null;
  switch (store) {
    case 'memory':
      counter = (rule) => new RateLimiterMemory({ points: rule.points, duration: rule.durationSec });
      break;
    case 'postgres':
      // The gateway's pool: no extra connections, and the store is as available as the gateway's own data.
      counter = (rule) =>
        postgresStore({
          db: deps.db,
          schema: deps.schema,
          points: rule.points,
          durationSec: rule.durationSec,
          keyPrefix: keyPrefix(rule),
          insurance: insurance(rule),
        });
      break;
    case 'redis': {
      if (!config.REDIS_URL) throw new Error('REDIS_URL is required with RATE_LIMIT_STORE=redis');
      const client = redisClient(config.REDIS_URL, deps.logger);
      if (!(await redisReady(client, deps.redisConnectTimeoutMs ?? 5000)))
        deps.logger.warn('rate-limit store: Redis not reachable at start; counting per process until it is');
      counter = (rule) =>
        redisStore({
          client,
          points: rule.points,
          durationSec: rule.durationSec,
          keyPrefix: keyPrefix(rule),
          insurance: insurance(rule),
        });
      close = () => closeRedis(client);
      redis = client;
      break;
    }
  }
  const points = config.RATE_LIMIT_PER_MINUTE;
  return {
    limiter: flexibleRateLimiter(counter({ name: API_RULE, points, durationSec: WINDOW_SEC }), points),
    store,
    counter,
    redis,
    close,
  };
}

const API_RULE = 'api';
