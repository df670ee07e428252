import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, type Fleet } from '../support/fleet';
import { balance, waitForJob } from '../support/jobs';

const PASSWORD = 'a long enough password';
const VIDEO = '/api/v1/video/vidgen-2/generate';
const IMAGE = '/api/v1/image/imagegen/generate';

/** Per-key spend limit and concurrent-jobs limit, set by the dashboard and the admin CLI, under parallel submits. */
describe("an API key's spend limit and concurrent-jobs limit", () => {
  let fleet: Fleet;
  let n = 0;

  beforeAll(async () => {
    // One render at a time: 15 s videos stay processing for the whole test.
    fleet = await startFleet({ RATE_LIMIT_PER_MINUTE: '100000', LOCAL_RENDER_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  const newUser = async (credits: number) => {
    const email = `limits${Date.now()}${n++}@example.test`;
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', String(credits));
    const created = await fleet.admin('key:create', '--email', email, '--scopes', 'all');
    return { email, key: String(created.key), keyId: Number(created.id) };
  };
  const submitMany = (key: string, path: string, body: object, count: number) =>
    Promise.all(Array.from({ length: count }, () => api(fleet, 'POST', path, { key, body })));

  it('lets parallel submits spend only up to the limit set in the dashboard, answering the rest 402', async () => {
    const user = await newUser(10_000);
    const dashboard = new DashboardSession(fleet.baseUrl);
    expect((await dashboard.signIn(user.email, PASSWORD)).status).toBe(200);
    const bad = await dashboard.call('PUT', `/keys/${user.keyId}/limits`, { body: { spend_limit: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'spend_limit must be an integer between 1 and 1000000000, or null' });
    const set = await dashboard.call('PUT', `/keys/${user.keyId}/limits`, { body: { spend_limit: 120 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ spend_limit: 120, max_concurrent_jobs: null, spent_this_period: 0, active_jobs: 0 });

    const answers = await submitMany(user.key, IMAGE, { prompt: 'a lighthouse at dusk' }, 6);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 402, 402, 402, 402]);
    for (const refused of answers.filter((a) => a.status === 402))
      expect(refused.body).toEqual({
        error: 'Spend limit of this API key reached',
        reason: 'spend_limit',
        credits_required: 50,
        credits_remaining: 20,
      });
    expect(await balance(fleet, user.key)).toBe(10_000 - 100);

    const listed = await dashboard.call('GET', '/keys');
    expect(listed.body.keys[0].limits).toMatchObject({
      spend_limit: 120,
      max_concurrent_jobs: null,
      spent_this_period: 100,
    });
    // The key sees its own limits and use in GET /api/v1/account.
    const account = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    expect(account.body).toMatchObject({
      spend_limit: 120,
      spent_this_period: 100,
      max_concurrent_jobs: null,
      active_jobs: expect.any(Number),
    });
  });

  it('runs parallel submits only up to the concurrent-jobs limit set with the admin CLI, 429 with Retry-After past it, and a cancelled job frees its slot', async () => {
    const user = await newUser(100_000);
    const set = await fleet.admin('key:limits', '--id', String(user.keyId), '--max-concurrent-jobs', '2');
    expect(set).toEqual({
      api_key_id: user.keyId,
      spend_limit: null,
      max_concurrent_jobs: 2,
      spent_this_period: 0,
      active_jobs: 0,
    });
    const body = { prompt: 'a slow pan over mountains', duration_seconds: 15 };
    const answers = await submitMany(user.key, VIDEO, body, 6);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toEqual({ error: 'Too many concurrent jobs for this API key', retry_after: 5 });
    }
    // Only the two running jobs were charged.
    expect(await balance(fleet, user.key)).toBe(100_000 - 2 * 3405);

    const [first, second] = answers.filter((a) => a.status === 202).map((a) => String(a.body.job_id));
    expect((await api(fleet, 'DELETE', `/api/v1/jobs/${first}`, { key: user.key })).status).toBe(200);
    // The cancellation's refund (or its event) frees the slot a moment later.
    let next = await api(fleet, 'POST', VIDEO, { key: user.key, body });
    for (let i = 0; next.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      next = await api(fleet, 'POST', VIDEO, { key: user.key, body });
    }
    expect(next.status).toBe(202);
    expect((await api(fleet, 'POST', VIDEO, { key: user.key, body })).status).toBe(429);
    for (const id of [second, String(next.body.job_id)])
      await api(fleet, 'DELETE', `/api/v1/jobs/${id}`, { key: user.key });
  });

  it('frees the slot of a job that completes (not refunded: its job.completed event tells billing)', async () => {
    const user = await newUser(1_000);
    await fleet.admin('key:limits', '--id', String(user.keyId), '--max-concurrent-jobs', '1');
    const first = await api(fleet, 'POST', IMAGE, { key: user.key, body: { prompt: 'one red circle' } });
    expect(first.status).toBe(202);
    expect((await api(fleet, 'POST', IMAGE, { key: user.key, body: { prompt: 'too soon' } })).status).toBe(429);
    expect((await waitForJob(fleet, user.key, String(first.body.job_id))).status).toBe('completed');
    let next = await api(fleet, 'POST', IMAGE, { key: user.key, body: { prompt: 'now it fits' } });
    for (let i = 0; next.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      next = await api(fleet, 'POST', IMAGE, { key: user.key, body: { prompt: 'now it fits' } });
    }
    expect(next.status).toBe(202);
    expect(await balance(fleet, user.key)).toBe(1_000 - 100);
  });

  it('reads the limits with key:limits and no flag, and changes only the flags given', async () => {
    const user = await newUser(0);
    const limits = (...flags: string[]) => fleet.admin('key:limits', '--id', String(user.keyId), ...flags);
    expect(await limits('--spend-limit', '500')).toMatchObject({ spend_limit: 500, max_concurrent_jobs: null });
    expect(await limits('--max-concurrent-jobs', '3')).toMatchObject({ spend_limit: 500, max_concurrent_jobs: 3 });
    expect(await limits()).toEqual({
      api_key_id: user.keyId,
      spend_limit: 500,
      max_concurrent_jobs: 3,
      spent_this_period: 0,
      active_jobs: 0,
    });
    expect(await limits('--spend-limit', 'none')).toMatchObject({ spend_limit: null, max_concurrent_jobs: 3 });
  });

  it('refuses key:limits on an unknown key and a bad value with a clear message', async () => {
    await expect(fleet.admin('key:limits', '--id', '999999', '--spend-limit', '10')).rejects.toThrow(
      /API key not found/,
    );
    const user = await newUser(0);
    await expect(fleet.admin('key:limits', '--id', String(user.keyId), '--spend-limit', 'lots')).rejects.toThrow(
      /spend_limit must be an integer between 1 and 1000000000, or null/,
    );
  });
});
