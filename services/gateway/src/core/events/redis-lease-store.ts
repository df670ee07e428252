import type { Redis } from 'ioredis';
import type { LeaseStore } from './shared-stream-slots';

// A sorted set per API key: members are slot ids, scores their expiry (Redis' clock, ms). The set
// itself expires with its newest lease, so a key nobody streams on leaves nothing behind.
const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] the key's set; ARGV slot id, limit, ttl ms. 1 when taken, 0 when the key is at its limit. */
const TAKE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** KEYS[1] the key's set; ARGV slot id, ttl ms. */
const RENEW = `${NOW_MS}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

type ScriptRunner = (key: string, ...args: Array<string | number>) => Promise<unknown>;

/** Stream slots in Redis (RATE_LIMIT_STORE=redis): each operation one script, atomic whatever the number of replicas. */
export function redisLeaseStore(client: Redis, keyPrefix: string): LeaseStore {
  const setOf = (key: string) => `${keyPrefix}:streams:${key}`;
  const take: ScriptRunner = (key, ...args) => client.eval(TAKE, 1, key, ...args);
  const renew: ScriptRunner = (key, ...args) => client.eval(RENEW, 1, key, ...args);
  return {
    take: async (lease, limit, ttlMs) => (await take(setOf(lease.key), lease.slotId, limit, ttlMs)) === 1,
    renew: async (leases, ttlMs) => {
      await Promise.all(leases.map((l) => renew(setOf(l.key), l.slotId, ttlMs)));
    },
    free: async (lease) => {
      await client.zrem(setOf(lease.key), lease.slotId);
    },
  };
}
