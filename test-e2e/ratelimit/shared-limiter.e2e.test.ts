import { api, startFleet, userWithKey, type Fleet, type Replica } from '../support/fleet';

/**
 * RATE_LIMIT_STORE=postgres: two gateway processes count one key's requests together, so the
 * contract's 60 per minute holds however many replicas the ingress spreads a client over.
 */
describe('the rate limit shared by two gateway replicas (RATE_LIMIT_STORE=postgres)', () => {
  let fleet: Fleet;
  let second: Replica;

  beforeAll(async () => {
    fleet = await startFleet({ RATE_LIMIT_STORE: 'postgres' });
    second = await fleet.startReplica('gateway');
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  it('allows 60 requests of one key across both gateways, counting down on each, and answers the 61st with 429', async () => {
    const u = await userWithKey(fleet, 'models:read');
    const gateways = [fleet, second];
    const resets = new Set<number>();
    for (let i = 1; i <= 60; i++) {
      const res = await api(gateways[i % 2], 'GET', '/api/v1/models', { key: u.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      resets.add(Number(res.headers.get('x-ratelimit-reset')));
    }
    // One window for both: each replica reports the same end (up to a second of rounding).
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
    expect(Math.min(...resets)).toBeGreaterThan(Date.now() / 1000 - 1);

    const limited = await api(gateways[1], 'GET', '/api/v1/models', { key: u.key });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toEqual({
      error: `Rate limit exceeded: 60 requests per minute per API key. Retry after ${retryAfter} s.`,
      retry_after: retryAfter,
    });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);

    // The other gateway refuses the key too: neither has a count of its own.
    const alsoLimited = await api(gateways[0], 'GET', '/api/v1/account', { key: u.key });
    expect(alsoLimited.status).toBe(429);
    expect(alsoLimited.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts another key on its own, on either gateway', async () => {
    const other = await userWithKey(fleet, 'models:read');
    const first = await api(second, 'GET', '/api/v1/models', { key: other.key });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    const next = await api(fleet, 'GET', '/api/v1/models', { key: other.key });
    expect(next.headers.get('x-ratelimit-remaining')).toBe('58');
  });
});
