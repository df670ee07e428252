import type { RequestHandler, Response } from 'express';
import { AppError } from '@mf/errors';
import { rateLimitExceededMessage, type RateLimitDecision, type RateLimiter } from '../core/ratelimit/rate-limiter';

/**
 * Counts every authenticated request against its key. Every response carries X-RateLimit-Limit,
 * -Remaining and -Reset (epoch seconds); over the limit: 429 with Retry-After in seconds.
 */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const auth = req.auth;
    if (!auth) return next();
    const d = await limiter.consume(rateLimitKey(auth.apiKeyId));
    setRateLimitHeaders(res, d);
    if (d.allowed) return next();
    next(AppError.rateLimited(rateLimitExceededMessage(d.limit, d.retryAfterSec), d.retryAfterSec));
  };
}

/** The limiter's key for an API key: REST and MCP requests of one key share it. */
export function rateLimitKey(apiKeyId: number): string {
  return `key:${apiKeyId}`;
}

export function setRateLimitHeaders(res: Response, d: RateLimitDecision): void {
  res.setHeader('X-RateLimit-Limit', String(d.limit));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(d.resetAtSec));
}
