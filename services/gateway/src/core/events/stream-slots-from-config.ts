import type { Redis } from 'ioredis';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { RateLimitStoreKind } from '../ratelimit/settings';
import { postgresLeaseStore } from './postgres-lease-store';
import { redisLeaseStore } from './redis-lease-store';
import { SharedStreamSlots } from './shared-stream-slots';
import { StreamLimits, type StreamSlots } from './stream-limits';

export interface StreamSlotsConfig {
  STREAMS_PER_KEY: number;
  STREAMS_PER_USER: number;
  STREAM_SLOT_TTL_MS: number;
  RATE_LIMIT_KEY_PREFIX: string;
}

export interface StreamSlotsDeps {
  /** The rate limit's store: the stream limit lives where the request counts do. */
  store: RateLimitStoreKind;
  db: Knex;
  schema: string;
  /** RATE_LIMIT_STORE=redis's client. */
  redis: Redis | null;
  logger: Logger;
}

/**
 * The per-key and per-user stream limits on the rate limit's store: per process with `memory` (one replica),
 * across every replica with `postgres` or `redis` (leases renewed while the stream is open).
 */
export function streamSlotsFromConfig(config: StreamSlotsConfig, deps: StreamSlotsDeps): StreamSlots {
  const opts = {
    perKey: config.STREAMS_PER_KEY,
    perUser: config.STREAMS_PER_USER,
    ttlMs: config.STREAM_SLOT_TTL_MS,
    logger: deps.logger,
  };
  switch (deps.store) {
    case 'memory':
      return new StreamLimits(config.STREAMS_PER_KEY, config.STREAMS_PER_USER);
    case 'postgres':
      return new SharedStreamSlots(postgresLeaseStore(deps.db, deps.schema), { ...opts, storeName: 'postgres' });
    case 'redis':
      if (!deps.redis) throw new Error("the redis stream-limit store needs the rate limit's Redis client");
      return new SharedStreamSlots(redisLeaseStore(deps.redis, config.RATE_LIMIT_KEY_PREFIX), {
        ...opts,
        storeName: 'redis',
      });
  }
}
