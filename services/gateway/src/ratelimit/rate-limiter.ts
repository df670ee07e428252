import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { WINDOW_SEC } from './window';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current window ends, epoch seconds. */
  resetAtSec: number;
  /** Seconds until a request is allowed again (0 when allowed). */
  retryAfterSec: number;
}

/** Counts requests per key in a fixed one-minute window. The store behind it is replaceable. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

/**
 * Wraps any rate-limiter-flexible store: memory per process (the contract's behaviour), or its
 * Postgres and Redis stores, which share the count across gateway replicas (limiter-from-config.ts).
 * A store failure is passed through: the shared stores answer from their insurance limiter instead.
 */
export function flexibleRateLimiter(store: RateLimiterAbstract, limit: number, now: () => number = Date.now): RateLimiter {
  const decide = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetAtSec: Math.ceil((now() + res.msBeforeNext) / 1000),
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    async consume(key) {
      try {
        return decide(await store.consume(key, 1), true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decide(err, false);
        throw err;
      }
    },
  };
}

export function memoryRateLimiter(limitPerMinute: number): RateLimiter {
  return flexibleRateLimiter(new RateLimiterMemory({ points: limitPerMinute, duration: WINDOW_SEC }), limitPerMinute);
}
