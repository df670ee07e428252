import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import type { RateLimitDecision, RateLimiter } from '../core/ratelimit/rate-limiter';
import { memoryRateLimiter } from '../core/ratelimit/rate-limiter';
import { rateLimit } from './rate-limit.middleware';

const logger = createLogger('gateway-ratelimit-test', 'silent');

/** A limiter that answers the decisions it is given, in order, and records the keys it was asked about. */
function fakeLimiter(decisions: RateLimitDecision[]): RateLimiter & { keys: string[] } {
  const keys: string[] = [];
  return {
    keys,
    async consume(key) {
      keys.push(key);
      const d = decisions.shift();
      if (!d) throw new Error('no more decisions');
      return d;
    },
  };
}

function buildApp(limiter: RateLimiter, apiKeyId: number | null = 42): Express {
  const app = createHttpApp({ logger });
  app.use((req, _res, next) => {
    if (apiKeyId !== null) req.auth = { userId: 1, apiKeyId, scopes: ['models:read'] };
    next();
  });
  app.use(rateLimit(limiter));
  app.get('/api/v1/models', (_req, res) => {
    res.json({ models: [] });
  });
  finish(app, logger);
  return app;
}

const allowed: RateLimitDecision = {
  allowed: true,
  limit: 60,
  remaining: 17,
  resetAtSec: 1_700_000_060,
  retryAfterSec: 0,
  granted: 1,
};
const refused: RateLimitDecision = {
  allowed: false,
  limit: 60,
  remaining: 0,
  resetAtSec: 1_700_000_060,
  retryAfterSec: 23,
  granted: 0,
};

describe('rateLimit middleware', () => {
  it('lets an allowed request through with X-RateLimit-Limit, -Remaining and -Reset headers', async () => {
    const limiter = fakeLimiter([allowed]);
    const res = await request(buildApp(limiter)).get('/api/v1/models');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ models: [] });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBe('17');
    expect(res.headers['x-ratelimit-reset']).toBe('1700000060');
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('counts requests per API key', async () => {
    const limiter = fakeLimiter([allowed]);
    await request(buildApp(limiter, 99)).get('/api/v1/models');
    expect(limiter.keys).toEqual(['key:99']);
  });

  it('refuses with 429, a Retry-After header and a JSON body carrying retry_after', async () => {
    const limiter = fakeLimiter([refused]);
    const res = await request(buildApp(limiter)).get('/api/v1/models');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('23');
    expect(res.body).toEqual({
      error: 'Rate limit exceeded: 60 requests per minute per API key. Retry after 23 s.',
      retry_after: 23,
    });
  });

  it('keeps the X-RateLimit headers on a refused response', async () => {
    const res = await request(buildApp(fakeLimiter([refused]))).get('/api/v1/models');
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe('1700000060');
  });

  it('carries the X-RateLimit headers on error responses after it, such as a 404', async () => {
    const res = await request(buildApp(fakeLimiter([allowed]))).get('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.headers['x-ratelimit-remaining']).toBe('17');
  });

  it('does not count or label unauthenticated requests', async () => {
    const limiter = fakeLimiter([]);
    const res = await request(buildApp(limiter, null)).get('/api/v1/models');
    expect(res.status).toBe(200);
    expect(limiter.keys).toEqual([]);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('turns a limiter failure into a generic 500', async () => {
    const broken: RateLimiter = {
      consume: async () => {
        throw new Error('store unreachable');
      },
    };
    const res = await request(buildApp(broken)).get('/api/v1/models');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal error', request_id: res.headers['x-request-id'] });
  });

  it('with the real 60-per-minute limiter, allows 60 requests of a key and refuses the 61st', async () => {
    const app = buildApp(memoryRateLimiter(60));
    for (let i = 0; i < 60; i++) {
      const ok = await request(app).get('/api/v1/models');
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(59 - i));
    }
    const res = await request(app).get('/api/v1/models');
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.body.retry_after).toBe(retryAfter);
  });
});
