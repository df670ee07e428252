import { Client } from 'pg';
import { startFakeReplicate, type FakeReplicate } from '../../services/jobs/test/support/fake-replicate';
import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, type Fleet } from '../support/fleet';
import { balance, balanceBecomes, waitForJob } from '../support/jobs';
import { combinedCaFile, testTls } from '../support/tls';

/**
 * A fleet whose models fall through routes (PROVIDERS_JSON): Replicate first, the local renderer
 * second; vidgen-2.0-fast has Replicate only. Replicate is a fake that refuses or fails on cue.
 */
describe('jobs routed across providers with fallback', () => {
  let rep: FakeReplicate;
  let fleet: Fleet;
  let db: Client;
  const PASSWORD = 'correct horse battery staple';

  beforeAll(async () => {
    rep = await startFakeReplicate({ completeAfterPolls: 1 });
    const doc = {
      providers: {
        rep: {
          type: 'replicate',
          base_url: rep.url,
          api_key_env: 'REPLICATE_API_TOKEN',
          webhook_secret_env: 'REPLICATE_WEBHOOK_SECRET',
          breaker: { failures: 1000 },
        },
        local: { type: 'local' },
      },
      routes: {
        'imagegen-2': [{ provider: 'rep', model: 'acme/image' }, { provider: 'local' }],
        'vidgen-2.0': [{ provider: 'rep', model: 'acme/video' }, { provider: 'local' }],
        'vidgen-2.0-fast': [{ provider: 'rep', model: 'acme/video' }],
      },
    };
    fleet = await startFleet({
      PROVIDERS_JSON: JSON.stringify(doc),
      REPLICATE_API_TOKEN: rep.token,
      REPLICATE_WEBHOOK_SECRET: rep.secret,
      ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      NODE_EXTRA_CA_CERTS: combinedCaFile([rep.caPem!, (await testTls()).cert]),
    });
    db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await fleet?.shutdown();
    await rep?.close();
  });

  async function dashboardUser(credits: number): Promise<{ s: DashboardSession; key: string }> {
    const email = `routes${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.test`;
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', String(credits));
    const key = await fleet.admin('key:create', '--email', email, '--scopes', 'all');
    const s = new DashboardSession(fleet.baseUrl);
    expect((await s.signIn(email, PASSWORD)).status).toBe(200);
    return { s, key: String(key.key) };
  }
  const ledgerOf = async (jobId: string) =>
    (
      await db.query<{ kind: string; amount: number }>(
        'SELECT kind, amount FROM billing.ledger WHERE reference = $1 ORDER BY kind',
        [`job:${jobId}`],
      )
    ).rows.map((r) => ({ kind: r.kind, amount: Math.abs(Number(r.amount)) }));

  it('completes through the second route when the first refuses every submit, charged once, with both attempts on the dashboard', async () => {
    const { s, key } = await dashboardUser(1000);
    const ids: string[] = [];
    for (const prompt of ['a red kite [rep:submit-error]', 'a blue kite [rep:submit-429]']) {
      const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key,
        body: { prompt, num_images: 2 },
      });
      expect(submit.status).toBe(202);
      ids.push(submit.body.job_id);
    }
    for (const id of ids) {
      const job = await waitForJob(fleet, key, id);
      expect(job).toMatchObject({ status: 'completed', credits_consumed: 100, error: null });
      expect(job.result.images).toHaveLength(2);
      // The public Job object stays the contract's: no attempts, no provider names.
      expect(Object.keys(job).sort()).toEqual([
        'completed_at',
        'created_at',
        'credits_consumed',
        'error',
        'input',
        'job_id',
        'model',
        'progress',
        'project_id',
        'result',
        'source',
        'status',
        'type',
      ]);
      expect(await ledgerOf(id)).toEqual([{ kind: 'charge', amount: expect.any(Number) }]);
      const attempts = await s.get(`/jobs/${id}/attempts`);
      expect(attempts.status).toBe(200);
      expect(attempts.body.attempts).toEqual([
        expect.objectContaining({
          n: 1,
          provider: 'rep',
          upstream_model: 'acme/image',
          upstream_id: null,
          state: 'failed',
          error: expect.stringMatching(/^replicate submit refused: HTTP (500|429)$/),
          ended_at: expect.any(String),
        }),
        expect.objectContaining({
          n: 2,
          provider: 'local',
          state: 'succeeded',
          error: null,
          ended_at: expect.any(String),
        }),
      ]);
    }
    expect(await balance(fleet, key)).toBe(1000 - 2 * 100);
  });

  it('falls through to the next route when the first fails after taking the job (found by polling)', async () => {
    const { s, key } = await dashboardUser(2000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'a storm [rep:fail]', duration_seconds: 4 },
    });
    expect(submit.status).toBe(202);
    const job = await waitForJob(fleet, key, submit.body.job_id);
    expect(job.status).toBe('completed');
    const { body } = await s.get(`/jobs/${submit.body.job_id}/attempts`);
    expect(body.attempts.map((a: { provider: string; state: string }) => `${a.provider}:${a.state}`)).toEqual([
      'rep:failed',
      'local:succeeded',
    ]);
    expect(body.attempts[0].upstream_id).toMatch(/^\w+$/);
    expect(await ledgerOf(submit.body.job_id)).toEqual([{ kind: 'charge', amount: 908 }]);
    expect(await balance(fleet, key)).toBe(2000 - 908);
  });

  it('tries a value the first upstream cannot honour on the next route, saying why on the attempt', async () => {
    const { s, key } = await dashboardUser(4000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'a long pan', duration_seconds: 15, resolution: '480p' },
    });
    expect(submit.status).toBe(202);
    expect((await waitForJob(fleet, key, submit.body.job_id)).status).toBe('completed');
    const { body } = await s.get(`/jobs/${submit.body.job_id}/attempts`);
    expect(body.attempts[0]).toMatchObject({
      provider: 'rep',
      state: 'failed',
      error: 'acme/video does not offer duration 15 (it offers 4, 5, 6, 8, 10)',
    });
  });

  it('answers 502 and refunds in full when every route refuses, leaving no visible job', async () => {
    const { key } = await dashboardUser(2000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'nobody [rep:submit-error]', fast: true, duration_seconds: 4 },
    });
    expect(submit.status).toBe(502);
    expect(submit.body.error).toContain('refunded');
    expect(await balance(fleet, key)).toBe(2000);
    const jobs = await db.query<{ id: string; status: string }>(
      `SELECT id, status FROM jobs.jobs WHERE model_id = 'vidgen-2.0-fast' AND params->>'prompt' = 'nobody [rep:submit-error]'`,
    );
    expect(jobs.rows).toEqual([{ id: expect.any(String), status: 'rejected' }]);
    expect(await ledgerOf(jobs.rows[0].id)).toEqual([
      { kind: 'charge', amount: 724 },
      { kind: 'refund', amount: 724 },
    ]);
  });

  it('fails and refunds a job whose only route fails after taking it', async () => {
    const { key } = await dashboardUser(2000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'doomed [rep:fail]', fast: true, duration_seconds: 4 },
    });
    expect(submit.status).toBe(202);
    const job = await waitForJob(fleet, key, submit.body.job_id);
    expect(job).toMatchObject({ status: 'failed', error: 'the provider reported a failure' });
    expect(await balanceBecomes(fleet, key, 2000)).toBe(2000);
  });

  it('gives Replicate a webhook URL naming the job and its attempt, and Replicate’s signed call is taken', async () => {
    const { key } = await dashboardUser(2000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key,
      body: { prompt: 'signed hook', duration_seconds: 4 },
    });
    expect((await waitForJob(fleet, key, submit.body.job_id)).status).toBe('completed');
    const hook = rep.webhooks.find((w) => w.url.includes(submit.body.job_id))!;
    expect(hook.url).toMatch(
      new RegExp(`^${fleet.baseUrl}/api/providers/callback/${submit.body.job_id}\\?token=[\\w-]+&attempt=1$`),
    );
    expect(hook.headers['webhook-signature']).toMatch(/^v1,/);
  });
});
