import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { flexibleRateLimiter, memoryRateLimiter, type RateLimitDecision, type RateLimiter } from './rate-limiter';

async function consumeMany(limiter: RateLimiter, key: string, n: number): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.consume(key));
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memoryRateLimiter(60)', () => {
  it('allows 60 requests in a minute with remaining counting down 59..0', async () => {
    const limiter = memoryRateLimiter(60);
    const decisions = await consumeMany(limiter, 'key:1', 60);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(decisions.every((d) => d.limit === 60)).toBe(true);
    expect(decisions.every((d) => d.retryAfterSec === 0)).toBe(true);
  });

  it('refuses the 61st request with a retry-after within the minute and a reset in the future', async () => {
    const limiter = memoryRateLimiter(60);
    await consumeMany(limiter, 'key:1', 60);
    const nowSec = Date.now() / 1000;
    const refused = await limiter.consume('key:1');
    expect(refused.allowed).toBe(false);
    expect(refused.limit).toBe(60);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
    expect(Number.isInteger(refused.retryAfterSec)).toBe(true);
    expect(refused.resetAtSec).toBeGreaterThan(nowSec);
    expect(refused.resetAtSec).toBeLessThanOrEqual(Math.ceil(nowSec) + 61);
    expect(Number.isInteger(refused.resetAtSec)).toBe(true);
  });

  it('keeps refusing further requests in the same window', async () => {
    const limiter = memoryRateLimiter(60);
    await consumeMany(limiter, 'key:1', 61);
    const again = await limiter.consume('key:1');
    expect(again.allowed).toBe(false);
    expect(again.remaining).toBe(0);
  });

  it('counts separate keys independently', async () => {
    const limiter = memoryRateLimiter(60);
    await consumeMany(limiter, 'key:1', 61);
    const other = await limiter.consume('key:2');
    expect(other).toMatchObject({ allowed: true, remaining: 59, retryAfterSec: 0 });
    expect((await limiter.consume('key:1')).allowed).toBe(false);
  });

  it('reports every decision of one window with the same reset time', async () => {
    const fixedNow = 1_700_000_000_000;
    const limiter = flexibleRateLimiter(new RateLimiterMemory({ points: 3, duration: 60 }), 3, () => fixedNow);
    const decisions = await consumeMany(limiter, 'k', 4);
    for (const d of decisions) {
      expect(d.resetAtSec).toBeGreaterThan(fixedNow / 1000);
      expect(d.resetAtSec).toBeLessThanOrEqual(fixedNow / 1000 + 60);
    }
  });
});

describe('flexibleRateLimiter', () => {
  it('allows requests again once the window has passed', async () => {
    const limiter = flexibleRateLimiter(new RateLimiterMemory({ points: 2, duration: 1 }), 2);
    const first = await consumeMany(limiter, 'key:7', 3);
    expect(first.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(first[2].retryAfterSec).toBe(1);

    let next = await limiter.consume('key:7');
    for (let attempt = 0; !next.allowed && attempt < 50; attempt++) {
      await sleep(200);
      next = await limiter.consume('key:7');
    }
    expect(next.allowed).toBe(true);
    expect(next.remaining).toBe(1);
  }, 20_000);

  it('computes the reset time from the injected clock', async () => {
    const fakeStore = {
      consume: async () => new RateLimiterRes(4, 2500, 1),
    } as unknown as RateLimiterAbstract;
    const limiter = flexibleRateLimiter(fakeStore, 5, () => 10_000);
    expect(await limiter.consume('k')).toEqual({
      allowed: true,
      limit: 5,
      remaining: 4,
      resetAtSec: 13,
      retryAfterSec: 0,
      granted: 1,
    });
  });

  it('rounds a refusal up to at least one second of retry-after', async () => {
    const fakeStore = {
      consume: async () => {
        // rate-limiter-flexible refuses by throwing its RateLimiterRes, not an Error.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw new RateLimiterRes(0, 1, 6);
      },
    } as unknown as RateLimiterAbstract;
    const limiter = flexibleRateLimiter(fakeStore, 5, () => 10_000);
    expect(await limiter.consume('k')).toEqual({
      allowed: false,
      limit: 5,
      remaining: 0,
      resetAtSec: 11,
      retryAfterSec: 1,
      granted: 0,
    });
  });

  it('passes a store failure through instead of treating it as a refusal', async () => {
    const fakeStore = {
      consume: async () => {
        throw new Error('redis down');
      },
    } as unknown as RateLimiterAbstract;
    await expect(flexibleRateLimiter(fakeStore, 5).consume('k')).rejects.toThrow('redis down');
  });
});

describe('consuming several points at once (a JSON-RPC batch)', () => {
  it('grants all of them while they fit, counting each', async () => {
    const limiter = memoryRateLimiter(10);
    const d = await limiter.consume('k', 4);
    expect(d).toMatchObject({ allowed: true, granted: 4, remaining: 6 });
  });

  it('grants only the first points that fit and refuses the rest, as that many single requests would', async () => {
    const limiter = memoryRateLimiter(10);
    await consumeMany(limiter, 'k', 7);
    const d = await limiter.consume('k', 5);
    expect(d).toMatchObject({ allowed: false, granted: 3, remaining: 0 });
    expect(d.retryAfterSec).toBeGreaterThanOrEqual(1);
    // The window is spent: the next single request is refused too.
    expect((await limiter.consume('k')).allowed).toBe(false);
    expect((await limiter.consume('k', 3)).granted).toBe(0);
  });

  it('grants nothing once the window is already over the limit', async () => {
    const limiter = memoryRateLimiter(2);
    await consumeMany(limiter, 'k', 5);
    expect(await limiter.consume('k', 4)).toMatchObject({ allowed: false, granted: 0 });
  });
});
