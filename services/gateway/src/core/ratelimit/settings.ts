// The rate limit's configuration, kept free of the store libraries: config.ts (and the admin CLI
// through it) imports this without loading ioredis.

export const RATE_LIMIT_STORES = ['memory', 'postgres', 'redis'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORES)[number];

export interface RateLimitConfig {
  RATE_LIMIT_STORE: RateLimitStoreKind;
  RATE_LIMIT_PER_MINUTE: number;
  RATE_LIMIT_KEY_PREFIX: string;
  REDIS_URL?: string;
}
