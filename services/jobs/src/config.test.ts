import { DEV_CALLBACK_SECRET, loadJobsConfig } from './config';

/** A production environment with a real callback secret: only the provider choice is left to each test. */
const PRODUCTION = { NODE_ENV: 'production', PROVIDER_CALLBACK_SECRET: 'a-long-random-secret-of-ours-123' };

describe('jobs config', () => {
  it('starts on the development callback secret outside production', () => {
    expect(loadJobsConfig({}).PROVIDER_CALLBACK_SECRET).toBe(DEV_CALLBACK_SECRET);
    expect(loadJobsConfig({ NODE_ENV: 'test' }).PROVIDER_CALLBACK_SECRET).toBe(DEV_CALLBACK_SECRET);
  });

  it('refuses to start with NODE_ENV=production on the development callback secret, naming the variable', () => {
    expect(() => loadJobsConfig({ NODE_ENV: 'production' })).toThrow(
      /PROVIDER_CALLBACK_SECRET: is the development default/,
    );
    expect(() => loadJobsConfig({ NODE_ENV: 'production', PROVIDER_CALLBACK_SECRET: DEV_CALLBACK_SECRET })).toThrow(
      /PROVIDER_CALLBACK_SECRET/,
    );
  });

  it('starts in production with a secret of its own', () => {
    const config = loadJobsConfig({ ...PRODUCTION, ALLOW_LOCAL_PROVIDER: 'true' });
    expect(config.PROVIDER_CALLBACK_SECRET).toBe('a-long-random-secret-of-ours-123');
  });

  it('refuses the local provider in production, naming ALLOW_LOCAL_PROVIDER, as PROVIDER=local or the default', () => {
    for (const env of [
      PRODUCTION,
      { ...PRODUCTION, PROVIDER: 'local' },
      { ...PRODUCTION, ALLOW_LOCAL_PROVIDER: 'false' },
    ])
      expect(() => loadJobsConfig(env)).toThrow(/ALLOW_LOCAL_PROVIDER: PROVIDER=local .*NODE_ENV=production/);
  });

  it('refuses a providers document with a local route in production, naming the provider', () => {
    const doc = JSON.stringify({
      providers: { oai: { type: 'openai-images', base_url: 'https://api.openai.com/v1' }, demo: { type: 'local' } },
      routes: {
        'imagegen-2': [{ provider: 'oai', model: 'gpt-image-1' }, { provider: 'demo' }],
        'vidgen-2.0': [{ provider: 'demo' }],
        'vidgen-2.0-fast': [{ provider: 'demo' }],
      },
    });
    expect(() => loadJobsConfig({ ...PRODUCTION, PROVIDERS_JSON: doc })).toThrow(
      /ALLOW_LOCAL_PROVIDER: the providers document routes jobs to the local provider \(providers\.demo\)/,
    );
    expect(
      loadJobsConfig({ ...PRODUCTION, PROVIDERS_JSON: doc, ALLOW_LOCAL_PROVIDER: 'true' }).routing.routes['vidgen-2.0'],
    ).toEqual([{ provider: 'demo', models: null }]);
  });

  it('starts in production on a document without a local route, and with the local provider outside production', () => {
    const doc = JSON.stringify({
      providers: { f: { type: 'fal', api_key_env: 'FAL_KEY' } },
      routes: {
        'imagegen-2': [{ provider: 'f' }],
        'vidgen-2.0': [{ provider: 'f' }],
        'vidgen-2.0-fast': [{ provider: 'f' }],
      },
    });
    expect([...loadJobsConfig({ ...PRODUCTION, PROVIDERS_JSON: doc, FAL_KEY: 'k' }).routing.providers.keys()]).toEqual([
      'f',
    ]);
    expect([...loadJobsConfig({ NODE_ENV: 'development' }).routing.providers.keys()]).toEqual(['local']);
    expect(loadJobsConfig({ NODE_ENV: 'test', PROVIDER: 'local' }).ALLOW_LOCAL_PROVIDER).toBe(false);
  });

  it('reads FAULT_POINTS as a list of known points and refuses a misspelt one, which would inject nothing', () => {
    expect(loadJobsConfig({}).FAULT_POINTS).toEqual([]);
    expect(loadJobsConfig({ FAULT_POINTS: 'after-charge' }).FAULT_POINTS).toEqual(['after-charge']);
    expect(() => loadJobsConfig({ FAULT_POINTS: 'after-chrage' })).toThrow(/unknown fault point after-chrage/);
  });

  it('refuses to start with NODE_ENV=production with a test switch on, naming each one', () => {
    const env = { ...PRODUCTION, ALLOW_LOCAL_PROVIDER: 'true' };
    expect(() => loadJobsConfig({ ...env, FAULT_POINTS: 'after-charge' })).toThrow(
      /FAULT_POINTS: is for tests and local development only/,
    );
    expect(() => loadJobsConfig({ ...env, ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /ALLOW_PRIVATE_URLS: is for tests and local development only/,
    );
    // Off is the same as unset, and outside production they are allowed.
    expect(loadJobsConfig({ ...env, FAULT_POINTS: '', ALLOW_PRIVATE_URLS: 'false' }).ALLOW_PRIVATE_URLS).toBe(false);
    expect(loadJobsConfig({ FAULT_POINTS: 'after-charge', ALLOW_PRIVATE_URLS: 'true' }).ALLOW_PRIVATE_URLS).toBe(true);
  });
});
