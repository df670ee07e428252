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
  /** Of the points asked for, how many fit under the limit: the first ones, in the order asked. */
  granted: number;
}

/** Counts requests per key in a fixed one-minute window. The store behind it is replaceable. */
export interface RateLimiter {
  /** Counts `points` requests (default 1) at once; allowed only when all of them fit. */
  consume(key: string, points?: number): Promise<RateLimitDecision>;
}

/** The 429 message of the per-key limit (REST body and MCP's JSON-RPC error alike). */
export function rateLimitExceededMessage(limit: number, retryAfterSec: number): string {
  return `Rate limit exceeded: ${limit} requests per minute per API key. Retry after ${retryAfterSec} s.`;
}

/**
 * Wraps any rate-limiter-flexible store: memory per process (the contract's behaviour), or its
 * Postgres and Redis stores, which share the count across gateway replicas (limiter-from-config.ts).
 * A store failure is passed through: the shared stores answer from their insurance limiter instead.
 */
export function flexibleRateLimiter(
  store: RateLimiterAbstract,
  limit: number,
  now: () => number = Date.now,
): RateLimiter {
  const decide = (res: RateLimiterRes, allowed: boolean, points: number): RateLimitDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetAtSec: Math.ceil((now() + res.msBeforeNext) / 1000),
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    // The store counts refused points too (as it counts a refused single request), so the window
    // held consumedPoints - points before this call.
    granted: allowed ? points : Math.max(0, Math.min(points, limit - (res.consumedPoints - points))),
  });
  return {
    async consume(key, points = 1) {
      try {
        return decide(await store.consume(key, points), true, points);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decide(err, false, points);
        throw err;
      }
    },
  };
}

export function memoryRateLimiter(limitPerMinute: number): RateLimiter {
  return flexibleRateLimiter(new RateLimiterMemory({ points: limitPerMinute, duration: WINDOW_SEC }), limitPerMinute);
}
