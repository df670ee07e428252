import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, type Fleet } from '../support/fleet';
import { LOOPBACK_DELIVERY, startReceiver } from '../support/webhook-receiver';

const PASSWORD = 'correct horse battery';
const SIGNUP_CREDITS = 250;
let counter = 0;
const newEmail = (tag: string) => `${tag}-${Date.now()}-${counter++}@example.test`;

/**
 * What a new user meets, through the dashboard API on the real fleet: sign-up credits granted once
 * through billing's ledger (also when billing was down at sign-up), the playground (models, price,
 * submit with the session or a key), media URLs the page can load on any host, admin grants that
 * a retry cannot double, and a sample job.completed for the webhook.
 */
describe('getting started on the dashboard API', () => {
  let fleet: Fleet;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    fleet = await startFleet({
      SIGNUP_CREDITS: String(SIGNUP_CREDITS),
      RATE_LIMIT_PER_MINUTE: '100000',
      ...LOOPBACK_DELIVERY,
    });
  }, 240_000);
  afterAll(async () => {
    await fleet?.shutdown();
    await receiver?.close();
  });

  async function signedUp(tag: string): Promise<{ s: DashboardSession; email: string; id: number }> {
    const s = new DashboardSession(fleet.baseUrl);
    const email = newEmail(tag);
    const res = await s.signUp(email, PASSWORD);
    expect(res.status).toBe(201);
    return { s, email, id: res.body.user.id };
  }

  it('grants SIGNUP_CREDITS once to a new account, as one ledger grant with the reference signup:<user id>', async () => {
    const { s, id } = await signedUp('fresh');
    const installation = (await s.get('/installation')).body;
    expect(installation).toMatchObject({
      signup_credits: SIGNUP_CREDITS,
      reference_url: '/api/v1/reference',
      openapi_url: '/api/v1/openapi.json',
    });
    // The key form's choices: every scope with its meaning; a new key starts with all but the editor's.
    expect(
      installation.scopes.map((s: { name: string; default: boolean; always: boolean }) => [
        s.name,
        s.default,
        s.always,
      ]),
    ).toEqual([
      ['models:read', true, true],
      ['video:write', true, false],
      ['image:write', true, false],
      ['jobs:read', true, false],
      ['video-editor:write', false, false],
      ['video-editor:read', false, false],
    ]);
    expect((await s.get('/balance')).body.credits_remaining).toBe(SIGNUP_CREDITS);
    // Signing in again, reading the balance again: still one grant.
    await s.signIn((await s.get('/me')).body.user.email, PASSWORD);
    await s.get('/balance');
    expect((await s.get('/ledger')).body.entries).toEqual([
      {
        id: expect.any(Number),
        kind: 'grant',
        reference: `signup:${id}`,
        amount: SIGNUP_CREDITS,
        delta: SIGNUP_CREDITS,
        balance_after: SIGNUP_CREDITS,
        description: 'sign-up credits',
        model: null,
        api_key_id: null,
        created_at: expect.any(String),
      },
    ]);
  });

  it('grants them later when billing was down at sign-up: the account is made at once, the credits follow once', async () => {
    await fleet.stopService('billing');
    let s: DashboardSession;
    try {
      // Sign-up does not wait for billing (it answers 201 after its own grant attempt gives up).
      ({ s } = await signedUp('late'));
    } finally {
      await fleet.startService('billing');
    }
    const balances = await Promise.all([s.get('/balance'), s.get('/balance'), s.get('/balance')]);
    expect(balances.map((b) => b.body.credits_remaining)).toEqual([SIGNUP_CREDITS, SIGNUP_CREDITS, SIGNUP_CREDITS]);
    expect(
      (await s.get('/ledger')).body.entries.map((e: { kind: string; amount: number }) => [e.kind, e.amount]),
    ).toEqual([['grant', SIGNUP_CREDITS]]);
  }, 120_000);

  it('runs a playground job with the session (no key, source dashboard) at the catalog price, its media URLs relative to the page', async () => {
    const { s } = await signedUp('player');
    const models = (await s.get('/models')).body.models;
    expect(models.map((m: { id: string }) => m.id)).toEqual(['vidgen-2.0', 'vidgen-2.0-fast', 'imagegen-2']);
    expect(models[2].params.num_images).toMatchObject({ min: 1, max: 4, default: 1 });

    const res = await s.post('/generate/image', {
      body: { api_key_id: null, input: { prompt: 'a paper kite', num_images: 2 } },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'processing',
      model: 'imagegen-2',
      credits_consumed: 100,
      credits_remaining: SIGNUP_CREDITS - 100,
    });
    let job;
    for (let i = 0; i < 120; i++) {
      job = (await s.get(`/jobs/${res.body.job_id}`)).body;
      if (job.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(job).toMatchObject({
      status: 'completed',
      source: 'dashboard',
      project_id: null,
      input: { prompt: 'a paper kite', num_images: 2, image_urls: [], aspect_ratio: '1:1', seed: expect.any(Number) },
    });
    // The page loads them from its own origin, whatever host it was opened on.
    expect(job.result.images).toEqual([
      `/media/jobs/${job.job_id}/image-1.png`,
      `/media/jobs/${job.job_id}/image-2.png`,
    ]);
    const png = await fetch(`${fleet.baseUrl}${job.result.images[0]}`);
    expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect((await s.get('/jobs')).body.jobs[0]).toMatchObject({
      job_id: job.job_id,
      api_key_id: null,
      source: 'dashboard',
    });
  }, 120_000);

  it("runs a playground job as one of the user's keys, and refuses another user's, a revoked one and one without the scope", async () => {
    const { s } = await signedUp('keyed');
    const images = (await s.post('/keys', { body: { name: 'images only', scopes: ['image:write'] } })).body.key;
    const revoked = (await s.post('/keys', { body: { name: 'old', scopes: ['all'] } })).body.key;
    await s.delete(`/keys/${revoked.id}`);
    const other = await signedUp('other');
    const theirs = (await other.s.post('/keys', { body: { name: 'theirs', scopes: ['all'] } })).body.key;

    const input = { prompt: 'a kite', num_images: 1 };
    expect(
      (await s.post('/generate/video', { body: { api_key_id: images.id, input: { prompt: 'a kite' } } })).body,
    ).toEqual({ error: 'This API key lacks the required scope: video:write', required_scope: 'video:write' });
    expect((await s.post('/generate/image', { body: { api_key_id: revoked.id, input } })).body).toEqual({
      error: 'This key is revoked: choose another one',
    });
    expect((await s.post('/generate/image', { body: { api_key_id: theirs.id, input } })).status).toBe(404);
    expect((await s.post('/generate/image', { body: { input: { prompt: '' } } })).body).toEqual({
      error: 'prompt is required (non-empty string)',
    });
    expect((await s.post('/generate/audio', { body: { input } })).status).toBe(404);
    expect((await s.post('/generate/image', { body: { input, model: 'x' } })).body).toEqual({
      error: 'unknown field: model (accepted: api_key_id, input)',
    });
    expect((await s.get('/balance')).body.credits_remaining).toBe(SIGNUP_CREDITS);

    const ok = await s.post('/generate/image', { body: { api_key_id: images.id, input } });
    expect(ok.status).toBe(202);
    const listed = (await s.get('/jobs')).body.jobs[0];
    expect(listed).toMatchObject({ job_id: ok.body.job_id, api_key_id: images.id, source: 'dashboard' });
    // The key can read it like any job of its owner.
    const key = (await s.post('/keys', { body: { name: 'reader', scopes: ['jobs:read'] } })).body.secret_key;
    expect((await api(fleet, 'GET', `/api/v1/jobs?limit=1`, { key })).body.jobs[0]).toMatchObject({
      job_id: ok.body.job_id,
      source: 'dashboard',
      project_id: null,
    });
  });

  it('grants once per idempotency key from the admin page, however often the form is sent', async () => {
    const admin = await signedUp('admin');
    await fleet.admin('user:role', '--email', admin.email, '--role', 'admin');
    const user = await signedUp('granted');
    const grant = (body: object) => admin.s.post(`/admin/users/${user.id}/credits`, { body });
    const first = await Promise.all([
      grant({ amount: 700, idempotency_key: 'grant-key-0001' }),
      grant({ amount: 700, idempotency_key: 'grant-key-0001' }),
    ]);
    expect(first.map((r) => r.body)).toEqual([
      { credits_remaining: SIGNUP_CREDITS + 700 },
      { credits_remaining: SIGNUP_CREDITS + 700 },
    ]);
    expect((await grant({ amount: 700, idempotency_key: 'grant-key-0002' })).body).toEqual({
      credits_remaining: SIGNUP_CREDITS + 1400,
    });
    expect((await grant({ amount: 5, idempotency_key: 'bad key!' })).body).toEqual({
      error: 'idempotency_key must be 8-64 letters, digits or dashes',
    });
    expect((await grant({ amount: 9, idempotency_key: 'grant-key-0001' })).status).toBe(409);
    expect(
      (await user.s.get('/ledger')).body.entries.map((e: { delta: number; description: string }) => [
        e.delta,
        e.description,
      ]),
    ).toEqual([
      [700, 'admin grant'],
      [700, 'admin grant'],
      [SIGNUP_CREDITS, 'sign-up credits'],
    ]);
  });

  it('sends a sample job.completed to the webhook on request: the real shape, X-Service-Test: true, marked in the log', async () => {
    const { s } = await signedUp('hooks');
    const key = (await s.post('/keys', { body: { name: 'hooked', scopes: ['all'] } })).body.key;
    await s.put(`/keys/${key.id}/webhook`, { body: { url: receiver.url } });
    const before = receiver.received.length;
    const res = await s.post(`/keys/${key.id}/webhook/test`, { body: { event: 'job.completed' } });
    expect(res.body.delivery).toMatchObject({
      event: 'job.completed',
      job_id: expect.stringMatching(/^job_test/),
      status_code: 200,
      test: true,
    });
    const hook = receiver.received[before];
    expect(hook.headers).toMatchObject({ 'x-service-event': 'job.completed', 'x-service-test': 'true' });
    const body = JSON.parse(hook.rawBody);
    expect(Object.keys(body)).toEqual([
      'job_id',
      'status',
      'model',
      'type',
      'credits_consumed',
      'created_at',
      'completed_at',
      'result',
      'error',
      'source',
      'project_id',
    ]);
    expect(body).toMatchObject({
      status: 'completed',
      model: 'fal-ai/vidgen-2/text-to-video',
      type: 'video',
      credits_consumed: 1135,
      error: null,
    });
    // No job of that id exists: a handler that looks it up finds nothing to act on.
    expect(
      (
        await api(fleet, 'GET', `/api/v1/jobs/${body.job_id}`, {
          key: (await s.post('/keys', { body: { name: 'r', scopes: [] } })).body.secret_key,
        })
      ).status,
    ).toBe(404);
    expect((await s.post(`/keys/${key.id}/webhook/test`, { body: { event: 'job.progress' } })).body).toEqual({
      error: 'event must be one of webhook.test, job.completed, job.failed, job.cancelled',
    });
  });
});
