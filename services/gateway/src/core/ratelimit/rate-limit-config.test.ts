import { ConfigError } from '@mf/config';
import { silentLogger } from '@mf/testing';
import type { Knex } from '@mf/db';
import { loadGatewayConfig } from '../../config';
import { limiterFromConfig } from './limiter-from-config';

describe('rate limit configuration', () => {
  it('counts in memory per process unless told otherwise (the contract)', () => {
    expect(loadGatewayConfig({})).toMatchObject({
      RATE_LIMIT_STORE: 'memory',
      RATE_LIMIT_PER_MINUTE: 60,
      RATE_LIMIT_KEY_PREFIX: 'mf:ratelimit',
    });
  });

  it('holds 10 streams per key, their shared slots leased for 30 s unless told otherwise', () => {
    expect(loadGatewayConfig({})).toMatchObject({ STREAMS_PER_KEY: 10, STREAM_SLOT_TTL_MS: 30_000 });
    expect(loadGatewayConfig({ STREAM_SLOT_TTL_MS: '1500' }).STREAM_SLOT_TTL_MS).toBe(1500);
    expect(() => loadGatewayConfig({ STREAM_SLOT_TTL_MS: '100' })).toThrow(/STREAM_SLOT_TTL_MS/);
  });

  it('accepts postgres without further settings', () => {
    expect(loadGatewayConfig({ RATE_LIMIT_STORE: 'postgres' }).RATE_LIMIT_STORE).toBe('postgres');
  });

  it('requires REDIS_URL with the redis store, naming the variable', () => {
    expect(() => loadGatewayConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/REDIS_URL/);
    expect(loadGatewayConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://cache:6379/2' })).toMatchObject({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'redis://cache:6379/2',
    });
  });

  it('refuses an unknown store, a non-redis REDIS_URL and a prefix with spaces', () => {
    expect(() => loadGatewayConfig({ RATE_LIMIT_STORE: 'memcached' })).toThrow(/RATE_LIMIT_STORE/);
    expect(() => loadGatewayConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL/);
    expect(() => loadGatewayConfig({ RATE_LIMIT_KEY_PREFIX: 'my prefix' })).toThrow(/RATE_LIMIT_KEY_PREFIX/);
  });

  it('builds the memory limiter without touching the database', async () => {
    const db = {} as Knex; // never used by the memory store
    const { limiter, store, close } = await limiterFromConfig(loadGatewayConfig({ RATE_LIMIT_PER_MINUTE: '2' }), {
      db,
      schema: 'gateway',
      logger: silentLogger(),
    });
    expect(store).toBe('memory');
    expect((await limiter.consume('k')).remaining).toBe(1);
    await close();
  });
});
