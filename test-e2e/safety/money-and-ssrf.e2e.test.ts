import { api, startFleet, userWithKey, type Fleet } from '../support/fleet';
import { balance } from '../support/jobs';

/** Money is never lost: a jobs process killed between charge and provider submit is made whole. */
describe('money and SSRF safety', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    // jobs from its sources: the production build has no fault points (FAULT_POINTS), and jobs is
    // restarted with one below. The rest from the build, as on the pool.
    fleet = await startFleet(
      { RATE_LIMIT_PER_MINUTE: '100000', SUBMIT_STUCK_AFTER_MS: '1500', SUBMIT_TIMEOUT_MS: '4000' },
      { fromSource: ['jobs'] },
    );
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  it('loses no credits: after the restart the sweeper refunds the interrupted submit', async () => {
    const u = await userWithKey(fleet, 'all', 1000);
    // Jobs kills itself right after the charge, before the provider submit.
    await fleet.stopService('jobs');
    await fleet.startService('jobs', { FAULT_POINTS: 'after-charge' });
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'interrupted' },
    });
    expect(submit.status).toBe(503);
    expect(await balance(fleet, u.key)).toBe(950); // charged, and nothing delivered yet

    await fleet.startService('jobs', { FAULT_POINTS: '' });
    const until = Date.now() + 30_000;
    let now = await balance(fleet, u.key);
    while (now !== 1000 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      now = await balance(fleet, u.key);
    }
    expect(now).toBe(1000);
    const account = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
    expect(account.body).toMatchObject({ credits_remaining: 1000, credits_used_this_period: 0 });
  });

  it('refuses a reference URL on a private address with the contract message, charging nothing', async () => {
    const u = await userWithKey(fleet, 'all', 1000);
    for (const image_url of [
      'https://127.0.0.1/x.png',
      'https://169.254.169.254/latest/meta-data/',
      'https://localhost/a.png',
      'https://[::1]/a.png',
    ]) {
      const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: u.key,
        body: { prompt: 'p', image_url },
      });
      expect([image_url, res.status, res.body]).toEqual([image_url, 400, { error: 'image_url must be a https URL' }]);
    }
    const img = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'p', image_urls: ['https://10.0.0.1/a.png'] },
    });
    expect(img.body).toEqual({ error: 'image_urls items must be https URLs' });
    expect(await balance(fleet, u.key)).toBe(1000);
  });

  it('says a well-formed https reference URL whose host does not resolve could not be fetched, charging nothing', async () => {
    const u = await userWithKey(fleet, 'all', 1000);
    const img = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'p', image_urls: ['https://does-not-exist.invalid/a.png'] },
    });
    expect([img.status, img.body]).toEqual([
      400,
      { error: 'image_urls item could not be fetched: Could not resolve does-not-exist.invalid' },
    ]);
    const video = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: u.key,
      body: { prompt: 'p', image_url: 'https://does-not-exist.invalid/a.png' },
    });
    expect([video.status, video.body]).toEqual([
      400,
      { error: 'image_url could not be fetched: Could not resolve does-not-exist.invalid' },
    ]);
    expect(await balance(fleet, u.key)).toBe(1000);
  });

  it('refuses a webhook URL on a loopback or metadata address when it is saved', async () => {
    const u = await userWithKey(fleet, 'models:read');
    for (const url of ['https://127.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/']) {
      await expect(fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', url)).rejects.toThrow(
        /url must not point to a private, loopback, link-local or metadata address/,
      );
    }
    await expect(
      fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', 'http://example.com/hook'),
    ).rejects.toThrow(/url must be a https URL/);
  });
});
