import { DashboardSession } from '../support/dashboard-session';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance } from '../support/jobs';

const VIDEO = '/api/v1/video/vidgen-2/generate';
const IMAGE = '/api/v1/image/imagegen/generate';

/** POST /api/v1/estimate: a submit's price, validated as the submit, charging nothing. */
describe('cost estimate', () => {
  let fleet: PooledFleet;
  let rich: TestUser;

  beforeAll(async () => {
    fleet = await pooledFleet();
    rich = await userWithKey(fleet, 'all', 5_000);
  });
  afterAll(async () => {});

  const estimate = (key: string, body: unknown) => api(fleet, 'POST', '/api/v1/estimate', { key, body });

  it('prices each model as the submit would charge, with the balance, and affordable when covered', async () => {
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{ model: 'vidgen-2.0', prompt: 'a fox' }, 'vidgen-2.0', 1135],
      [{ model: 'vidgen-2.0', prompt: 'a fox', duration_seconds: 10, resolution: '480p' }, 'vidgen-2.0', 1010],
      [{ model: 'vidgen-2.0-fast', prompt: 'a fox' }, 'vidgen-2.0-fast', 905],
      [{ model: 'vidgen-2.0-fast', prompt: 'a fox', fast: true, duration_seconds: 4 }, 'vidgen-2.0-fast', 724],
      [{ model: 'imagegen-2', prompt: 'a red bicycle', num_images: 3 }, 'imagegen-2', 150],
    ];
    for (const [body, model, credits] of cases) {
      const res = await estimate(rich.key, body);
      expect([res.status, res.body]).toEqual([200, { model, credits, credits_remaining: 5_000, affordable: true }]);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('says what the submit would charge really is charged by the submit', async () => {
    const user = await userWithKey(fleet, 'all', 5_000);
    const body = { prompt: 'a lighthouse', duration_seconds: 6, resolution: '720p' };
    const priced = await estimate(user.key, { model: 'vidgen-2.0', ...body });
    const submitted = await api(fleet, 'POST', VIDEO, { key: user.key, body });
    expect(submitted.status).toBe(202);
    expect(submitted.body.credits_consumed).toBe(priced.body.credits);
    await api(fleet, 'DELETE', `/api/v1/jobs/${submitted.body.job_id}`, { key: user.key });
  });

  it('refuses every bad field with exactly the status and message of the submit', async () => {
    // The prompt aside: an estimate may leave it out (below).
    const video: Array<Record<string, unknown>> = [
      { prompt: '' },
      { prompt: 'x'.repeat(4001) },
      { prompt: 'a', duration_seconds: 7 },
      { prompt: 'a', duration_seconds: '5' },
      { prompt: 'a', aspect_ratio: '2:1' },
      { prompt: 'a', resolution: '1080p' },
      { prompt: 'a', image_url: 'http://example.com/a.png' },
      { prompt: 'a', fast: true, image_url: 'https://example.com/a.png' },
      { prompt: 'a', seed: -1 },
      { prompt: 'a', duration: 5 },
    ];
    const image: Array<Record<string, unknown>> = [
      { prompt: 'a', num_images: 5 },
      { prompt: 'a', image_urls: ['http://example.com/a.png'] },
      { prompt: 'a', aspect_ratio: '21:9x' },
      { prompt: 42 },
    ];
    const pairs: Array<[string, Record<string, unknown>, string]> = [
      ...video.map((b): [string, Record<string, unknown>, string] => [VIDEO, b, 'vidgen-2.0']),
      ...image.map((b): [string, Record<string, unknown>, string] => [IMAGE, b, 'imagegen-2']),
    ];
    for (const [path, body, model] of pairs) {
      const submitted = await api(fleet, 'POST', path, { key: rich.key, body });
      const priced = await estimate(rich.key, { model, ...body });
      expect(submitted.status).toBe(400);
      expect([priced.status, priced.body]).toEqual([submitted.status, submitted.body]);
    }
    expect(await balance(fleet, rich.key)).toBe(5_000);
  });

  it('names the model when it is missing or not in the catalog, and a non-object body as the submit does', async () => {
    expect((await estimate(rich.key, { prompt: 'a' })).body).toEqual({ error: 'model is required' });
    expect((await estimate(rich.key, { model: 'vidgen-3', prompt: 'a' })).body).toEqual({
      error: 'model must be one of vidgen-2.0, vidgen-2.0-fast, imagegen-2',
    });
    const fastFalse = await estimate(rich.key, { model: 'vidgen-2.0-fast', prompt: 'a', fast: false });
    expect([fastFalse.status, fastFalse.body]).toEqual([400, { error: 'fast must be true for vidgen-2.0-fast' }]);
    const asArray = await estimate(rich.key, [1]);
    const submitArray = await api(fleet, 'POST', VIDEO, { key: rich.key, body: [1] });
    expect([asArray.status, asArray.body]).toEqual([submitArray.status, submitArray.body]);
  });

  it('answers affordable: false when the balance does not cover it, or the key’s spend limit leaves no room', async () => {
    const poor = await userWithKey(fleet, 'all', 100);
    expect((await estimate(poor.key, { model: 'vidgen-2.0', prompt: 'a fox' })).body).toEqual({
      model: 'vidgen-2.0',
      credits: 1135,
      credits_remaining: 100,
      affordable: false,
      reason: 'insufficient_credits',
    });
    expect((await estimate(poor.key, { model: 'imagegen-2', prompt: 'a fox', num_images: 2 })).body.affordable).toBe(
      true,
    );
    const limited = await userWithKey(fleet, 'all', 5_000);
    await fleet.admin('key:limits', '--id', String(limited.keyId), '--spend-limit', '1000');
    expect((await estimate(limited.key, { model: 'vidgen-2.0', prompt: 'a fox' })).body).toEqual({
      model: 'vidgen-2.0',
      credits: 1135,
      credits_remaining: 5_000,
      affordable: false,
      reason: 'spend_limit',
    });
  });

  it('prices a body without a prompt: the price does not depend on it', async () => {
    const res = await estimate(rich.key, { model: 'vidgen-2.0', duration_seconds: 10 });
    expect([res.status, res.body]).toEqual([
      200,
      { model: 'vidgen-2.0', credits: 2270, credits_remaining: 5_000, affordable: true },
    ]);
    expect((await estimate(rich.key, { model: 'imagegen-2' })).body).toMatchObject({ credits: 50 });
  });

  it('charges nothing and makes no job, however often it is asked', async () => {
    const user = await userWithKey(fleet, 'all', 2_000);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => estimate(user.key, { model: 'vidgen-2.0', prompt: 'again' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await balance(fleet, user.key)).toBe(2_000);
    const jobs = await api(fleet, 'GET', '/api/v1/jobs', { key: user.key });
    expect(jobs.body.jobs).toEqual([]);
  });

  it("prices the dashboard playground's run with the session, or with a key and its spend limit", async () => {
    const email = `estimate${Date.now()}@example.test`;
    const password = 'a long enough password';
    await fleet.admin('user:create', '--email', email, '--password', password, '--credits', '3000');
    const key = await fleet.admin('key:create', '--email', email, '--scopes', 'all');
    await fleet.admin('key:limits', '--id', String(key.id), '--spend-limit', '1000');
    const dashboard = new DashboardSession(fleet.baseUrl);
    expect((await dashboard.signIn(email, password)).status).toBe(200);
    const input = { model: 'vidgen-2.0', prompt: 'a fox' };
    const session = await dashboard.call('POST', '/estimate', { body: { api_key_id: null, input } });
    expect([session.status, session.body]).toEqual([
      200,
      { model: 'vidgen-2.0', credits: 1135, credits_remaining: 3000, affordable: true },
    ]);
    const withKey = await dashboard.call('POST', '/estimate', { body: { api_key_id: Number(key.id), input } });
    expect(withKey.body).toMatchObject({ credits: 1135, affordable: false });
    const bad = await dashboard.call('POST', '/estimate', { body: { input: { ...input, resolution: '1080p' } } });
    expect([bad.status, bad.body]).toEqual([400, { error: 'resolution must be one of 480p, 720p' }]);
    const notMine = await dashboard.call('POST', '/estimate', { body: { api_key_id: rich.keyId, input } });
    expect([notMine.status, notMine.body]).toEqual([404, { error: 'API key not found' }]);
  });
});
