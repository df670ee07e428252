import type { RequestHandler } from 'express';
import { AppError } from '@mf/errors';
import type { RateLimiter } from '../ratelimit/rate-limiter';

/**
 * Counts every authenticated request against its key. Every response carries X-RateLimit-Limit,
 * -Remaining and -Reset (epoch seconds); over the limit: 429 with Retry-After in seconds.
 */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const auth = req.auth;
    if (!auth) return next();
    const d = await limiter.consume(`key:${auth.apiKeyId}`);
    res.setHeader('X-RateLimit-Limit', String(d.limit));
    res.setHeader('X-RateLimit-Remaining', String(d.remaining));
    res.setHeader('X-RateLimit-Reset', String(d.resetAtSec));
    if (d.allowed) return next();
    next(
      new AppError(
        429,
        { error: `Rate limit exceeded: ${d.limit} requests per minute per API key. Retry after ${d.retryAfterSec} s.`, retry_after: d.retryAfterSec },
        { 'Retry-After': String(d.retryAfterSec) },
      ),
    );
  };
}
