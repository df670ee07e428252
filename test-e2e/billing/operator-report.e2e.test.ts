import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startFakeOpenRouter, type FakeOpenRouter } from '../../services/jobs/test/support/fake-openrouter';
import { startFakeReplicate, type FakeReplicate } from '../../services/jobs/test/support/fake-replicate';
import { csvRecords } from '../support/csv';
import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, type Fleet } from '../support/fleet';
import { waitForJob } from '../support/jobs';
import { combinedCaFile, testTls } from '../support/tls';

const run = promisify(execFile);
const PASSWORD = 'correct horse battery staple';
const CREDIT = 0.002;

type ReportRow = Record<string, unknown> & { jobs: number; credits_net: number; upstream_cost: number; margin: number };
interface Report {
  rows: ReportRow[];
  totals: ReportRow;
  credit_value: number;
}

/**
 * The operator's usage report over a fleet routed to fake upstreams: OpenRouter (videos, which says
 * what each cost in `usage.cost`) and Replicate (images, priced per image in the providers
 * document), the local renderer for the fast model (no upstream cost). Two users, a failed job.
 */
describe('operator usage report (admin usage:report, dashboard admin page)', () => {
  let or: FakeOpenRouter;
  let rep: FakeReplicate;
  let fleet: Fleet;
  const range = { from: new Date(Date.now() - 3600_000).toISOString(), to: '' };
  const users: { email: string; key: string }[] = [];
  const credits = { video: 0, images: 0 };
  let videoJobId = '';

  const report = async (...args: string[]) =>
    (await fleet.admin(
      'usage:report',
      '--from',
      range.from,
      '--to',
      range.to,
      '--credit-value',
      String(CREDIT),
      ...args,
    )) as unknown as Report;
  const submit = async (key: string, p: string, body: object): Promise<{ id: string; credits: number }> => {
    const res = await api(fleet, 'POST', p, { key, body });
    expect(res.status).toBe(202);
    return { id: res.body.job_id as string, credits: res.body.credits_consumed as number };
  };

  beforeAll(async () => {
    or = await startFakeOpenRouter({ completeAfterPolls: 1 });
    rep = await startFakeReplicate({ completeAfterPolls: 1 });
    const doc = {
      providers: {
        or: { type: 'openrouter', base_url: or.url, api_key_env: 'OPENROUTER_API_KEY' },
        rep: { type: 'replicate', base_url: rep.url, api_key_env: 'REPLICATE_API_TOKEN', breaker: { failures: 1000 } },
        local: { type: 'local' },
      },
      routes: {
        'vidgen-2.0': [{ provider: 'or', model: 'acme/veo', cost: { per_second: 1 } }],
        'imagegen-2': [{ provider: 'rep', model: 'acme/image', cost: { per_image: 0.003 } }],
        'vidgen-2.0-fast': [{ provider: 'local' }],
      },
    };
    fleet = await startFleet({
      PROVIDERS_JSON: JSON.stringify(doc),
      OPENROUTER_API_KEY: or.key,
      REPLICATE_API_TOKEN: rep.token,
      ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      NODE_EXTRA_CA_CERTS: combinedCaFile([or.caPem!, rep.caPem!, (await testTls()).cert]),
    });
    for (const n of [1, 2]) {
      const email = `operator${n}-${Date.now()}@example.test`;
      await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', '5000');
      const key = await fleet.admin('key:create', '--email', email, '--scopes', 'all');
      users.push({ email, key: String(key.key) });
    }
    const [a, b] = users;
    const jobs = [
      await submit(a.key, '/api/v1/video/vidgen-2/generate', {
        prompt: 'a lighthouse at dusk',
        duration_seconds: 8,
        resolution: '720p',
      }),
      await submit(a.key, '/api/v1/image/imagegen/generate', { prompt: 'two kites', num_images: 2 }),
      await submit(b.key, '/api/v1/image/imagegen/generate', { prompt: 'one kite', num_images: 1 }),
      await submit(b.key, '/api/v1/image/imagegen/generate', { prompt: 'a kite [rep:fail]', num_images: 1 }),
    ];
    const ended = await Promise.all(jobs.map((j, i) => waitForJob(fleet, (i < 2 ? a : b).key, j.id)));
    expect(ended.map((j) => j.status)).toEqual(['completed', 'completed', 'completed', 'failed']);
    credits.video = jobs[0].credits;
    videoJobId = jobs[0].id;
    credits.images = jobs[1].credits + jobs[2].credits;
    range.to = new Date(Date.now() + 60_000).toISOString();
  });
  afterAll(async () => {
    await fleet?.shutdown();
    await or?.close();
    await rep?.close();
  });

  const money = (credits: number, cost: number) => ({
    credits_net: credits,
    revenue: Math.round(credits * CREDIT * 1e6) / 1e6,
    upstream_cost: cost,
    margin: Math.round((credits * CREDIT - cost) * 1e6) / 1e6,
  });

  it('by provider: the reported cost of OpenRouter, the priced images of Replicate, the margin', async () => {
    const r = await report('--by', 'provider');
    expect(r.credit_value).toBe(CREDIT);
    expect(r.rows).toEqual([
      { provider: 'or', jobs: 1, ...money(credits.video, 0.4), unpriced_attempts: 0 },
      { provider: 'rep', jobs: 2, ...money(credits.images, 0.009), unpriced_attempts: 0 },
    ]);
    expect(r.totals).toEqual({ jobs: 3, ...money(credits.video + credits.images, 0.409), unpriced_attempts: 0 });
  });

  it('by user and by model: credits net from the ledger (the failed job refunded), upstream cost from the attempts', async () => {
    const byUser = await report('--by', 'user');
    expect(byUser.rows).toEqual([
      expect.objectContaining({ email: users[0].email, jobs: 2, ...money(credits.video + 100, 0.406) }),
      // Two charges, one refunded: its upstream cost is none (the failed prediction priced nothing).
      expect.objectContaining({ email: users[1].email, jobs: 2, ...money(50, 0.003) }),
    ]);
    const byModel = await report('--by', 'model');
    expect(byModel.rows).toEqual([
      { model: 'imagegen-2', jobs: 3, ...money(150, 0.009), unpriced_attempts: 0 },
      { model: 'vidgen-2.0', jobs: 1, ...money(credits.video, 0.4), unpriced_attempts: 0 },
    ]);
  });

  it('--csv prints the same rows as CSV', async () => {
    const json = await report('--by', 'model');
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(__dirname, '../../services/gateway/src/admin/cli.ts'),
        'usage:report',
        '--from',
        range.from,
        '--to',
        range.to,
        '--by',
        'model',
        '--credit-value',
        String(CREDIT),
        '--csv',
      ],
      { env: fleet.env, cwd: path.join(__dirname, '../..') },
    );
    const rows = csvRecords(stdout);
    expect(Object.keys(rows[0])).toEqual([
      'model',
      'jobs',
      'credits_net',
      'revenue',
      'upstream_cost',
      'margin',
      'unpriced_attempts',
    ]);
    expect(
      rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'model' ? v : Number(v)]))),
    ).toEqual(json.rows);
  });

  it('the dashboard shows the attempt cost to its owner and the report to admins only', async () => {
    const s = new DashboardSession(fleet.baseUrl);
    expect((await s.signIn(users[0].email, PASSWORD)).status).toBe(200);
    const attempts = await s.get(`/jobs/${videoJobId}/attempts`);
    expect(attempts.body.attempts).toEqual([
      expect.objectContaining({ provider: 'or', upstream_cost: 0.4, upstream_cost_source: 'reported' }),
    ]);
    const q = `from=${encodeURIComponent(range.from)}&to=${encodeURIComponent(range.to)}&by=provider`;
    expect((await s.get(`/admin/usage-report?${q}`)).status).toBe(403);

    await fleet.admin('user:role', '--email', users[0].email, '--role', 'admin');
    const viaDashboard = await s.get(`/admin/usage-report?${q}`);
    expect(viaDashboard.status).toBe(200);
    const viaCli = await report('--by', 'provider');
    // The dashboard values credits at CREDIT_VALUE_USD (the default), the CLI at --credit-value.
    expect(viaDashboard.body.rows.map((r: ReportRow) => [r.provider, r.jobs, r.credits_net, r.upstream_cost])).toEqual(
      viaCli.rows.map((r) => [r.provider, r.jobs, r.credits_net, r.upstream_cost]),
    );
    const byDay = await s.get(`/admin/usage-report?${q.replace('by=provider', 'by=day')}`);
    expect(byDay).toMatchObject({ status: 400, body: { error: 'by must be one of user, model, provider' } });
    const csv = await fetch(`${fleet.baseUrl}/dashboard/api/admin/usage-report?${q}&format=csv`, {
      headers: { cookie: s.cookieHeader },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csvRecords(await csv.text()).map((r) => r.provider)).toEqual(['or', 'rep']);
  });
});
