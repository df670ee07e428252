import { DEV_CALLBACK_SECRET, loadJobsConfig } from './config';

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
    const config = loadJobsConfig({
      NODE_ENV: 'production',
      PROVIDER_CALLBACK_SECRET: 'a-long-random-secret-of-ours-123',
    });
    expect(config.PROVIDER_CALLBACK_SECRET).toBe('a-long-random-secret-of-ours-123');
  });

  it('reads FAULT_POINTS as a list of known points and refuses a misspelt one, which would inject nothing', () => {
    expect(loadJobsConfig({}).FAULT_POINTS).toEqual([]);
    expect(loadJobsConfig({ FAULT_POINTS: 'after-charge' }).FAULT_POINTS).toEqual(['after-charge']);
    expect(() => loadJobsConfig({ FAULT_POINTS: 'after-chrage' })).toThrow(/unknown fault point after-chrage/);
  });
});
