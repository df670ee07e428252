import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '@mf/logger';
import { WINDOW_SEC } from './window';

/** A Redis command slower than this fails over to the per-process count instead of holding the request. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * An ioredis client as the library recommends it: no offline queue, so while Redis is away a
 * consume fails at once (and the insurance limiter answers) instead of queueing behind the
 * reconnect. Logs losing and regaining the connection once each, not every reconnect attempt.
 */
export function redisClient(url: string, logger: Logger): Redis {
  // ioredis loads only where Redis is configured (RATE_LIMIT_STORE=redis): an idle gateway on the
  // default store does not carry it (the memory bench, bench/README.md).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    lazyConnect: false,
  });
  let failing = false;
  client.on('error', (err: Error) => {
    if (failing) return;
    failing = true;
    logger.warn({ err: err.message }, 'rate-limit store: Redis unreachable, reconnecting');
  });
  client.on('ready', () => {
    if (!failing) return;
    failing = false;
    logger.info('rate-limit store: Redis reachable again');
  });
  return client;
}

/** Waits until the client is ready, at most `timeoutMs`; false when Redis did not answer. */
export async function redisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  try {
    // once() also rejects on the client's first 'error' event: unreachable, do not wait longer.
    await once(client, 'ready', { signal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

/** Closes the connection; quit waits for pending replies, disconnect when there is no connection. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

export interface RedisStoreOptions {
  client: Redis;
  points: number;
  /** The window, seconds (default: the API limit's minute). */
  durationSec?: number;
  /** Keeps the counters of deployments sharing one Redis apart. */
  keyPrefix: string;
  insurance?: RateLimiterAbstract;
}

/**
 * Counts in one Redis key per API key, expiring with the window. Each consume is one Lua script
 * (SET NX EX, INCRBY, PTTL), atomic in Redis whatever the number of replicas.
 */
export function redisStore({
  client,
  points,
  durationSec = WINDOW_SEC,
  keyPrefix,
  insurance,
}: RedisStoreOptions): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: client,
    keyPrefix,
    points,
    duration: durationSec,
    insuranceLimiter: insurance,
  });
}
