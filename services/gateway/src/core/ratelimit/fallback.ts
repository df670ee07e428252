import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '@mf/logger';
import { WINDOW_SEC } from './window';

export interface FallbackOptions {
  points: number;
  /** The window, seconds (default: the API limit's minute). */
  durationSec?: number;
  logger: Logger;
  /** Which shared store failed (for the log line). */
  store: string;
  now?: () => number;
}

/** A per-process count that also reports each time it stands in for the shared store. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    points: number,
    durationSec: number,
    private readonly onUse: () => void,
  ) {
    super({ points, duration: durationSec });
  }

  // Only called by the shared store when its own consume failed (the library's insuranceLimiter).
  override consume(
    key: string | number,
    pointsToConsume?: number,
    options?: { [key: string]: unknown },
  ): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(key, pointsToConsume, options);
  }
}

const LOG_EVERY_MS = 60_000;

/**
 * The shared store's insuranceLimiter: while Postgres or Redis fails, requests are still limited,
 * per process (as the memory store does), instead of failing. The library hides the store's
 * error, so we log that the fallback is in use: the first time, then at most once a minute with
 * how many requests it counted, so an outage does not flood the logs.
 */
export function fallbackLimiter({
  points,
  durationSec = WINDOW_SEC,
  logger,
  store,
  now = Date.now,
}: FallbackOptions): RateLimiterMemory {
  let lastLogAt = -Infinity;
  let unlogged = 0;
  return new FallbackLimiter(points, durationSec, () => {
    unlogged++;
    if (now() - lastLogAt < LOG_EVERY_MS) return;
    logger.warn({ store, requests: unlogged }, 'rate-limit store failed: counting per process until it answers again');
    lastLogAt = now();
    unlogged = 0;
  });
}
