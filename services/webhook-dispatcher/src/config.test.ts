import { randomBytes } from 'node:crypto';
import { loadWebhookDispatcherConfig, usesDevSecretKey } from './config';

describe('webhook-dispatcher config', () => {
  it('has the documented defaults', () => {
    const config = loadWebhookDispatcherConfig({});
    expect(config).toMatchObject({
      PORT: 8085,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_RETRY_DELAYS_MS: [30_000, 120_000, 600_000],
      WEBHOOK_ALLOW_HTTP: false,
      WEBHOOK_ALLOW_PRIVATE: false,
      WEBHOOK_PREFETCH: 20,
      WEBHOOK_ENDPOINT_CONCURRENCY: 4,
      WEBHOOK_MAX_IN_FLIGHT: 500,
    });
    expect(usesDevSecretKey(config)).toBe(true);
  });

  it('reads a comma-separated retry schedule', () => {
    expect(loadWebhookDispatcherConfig({ WEBHOOK_RETRY_DELAYS_MS: '300, 600,900' }).WEBHOOK_RETRY_DELAYS_MS).toEqual([
      300, 600, 900,
    ]);
  });

  it('refuses a retry schedule that is not a list of positive integers, naming the variable', () => {
    expect(() => loadWebhookDispatcherConfig({ WEBHOOK_RETRY_DELAYS_MS: '300,soon' })).toThrow(
      /WEBHOOK_RETRY_DELAYS_MS/,
    );
    expect(() => loadWebhookDispatcherConfig({ WEBHOOK_RETRY_DELAYS_MS: '0' })).toThrow(/WEBHOOK_RETRY_DELAYS_MS/);
  });

  it('accepts a real key and no longer counts as the development default', () => {
    const config = loadWebhookDispatcherConfig({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') });
    expect(usesDevSecretKey(config)).toBe(false);
  });

  it('refuses a key of the wrong size, naming the variable', () => {
    expect(() => loadWebhookDispatcherConfig({ WEBHOOK_SECRET_KEY: randomBytes(16).toString('hex') })).toThrow(
      /WEBHOOK_SECRET_KEY must be 32 bytes/,
    );
  });

  it('refuses to start with NODE_ENV=production on the development key, naming the variable', () => {
    expect(() => loadWebhookDispatcherConfig({ NODE_ENV: 'production' })).toThrow(
      /WEBHOOK_SECRET_KEY: is the development default/,
    );
    // The same key written in base64 is still the development key.
    const devBase64 = Buffer.from('dev-only-webhook-secret-key-0000').toString('base64');
    expect(() => loadWebhookDispatcherConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: devBase64 })).toThrow(
      /WEBHOOK_SECRET_KEY/,
    );
    expect(
      loadWebhookDispatcherConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') })
        .NODE_ENV,
    ).toBe('production');
  });

  it('refuses to start with NODE_ENV=production with plain-http or private destinations allowed, naming the variable', () => {
    const production = { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') };
    expect(() => loadWebhookDispatcherConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'true' })).toThrow(
      /WEBHOOK_ALLOW_HTTP: is for tests and local development only/,
    );
    expect(() => loadWebhookDispatcherConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE: is for tests and local development only/,
    );
    expect(loadWebhookDispatcherConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'false' }).WEBHOOK_ALLOW_HTTP).toBe(false);
    expect(loadWebhookDispatcherConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' })).toMatchObject({
      WEBHOOK_ALLOW_HTTP: true,
      WEBHOOK_ALLOW_PRIVATE: true,
    });
  });
});
