import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { MediaforgeClient } from '@mediaforge/sdk';
import { REPO_ROOT } from '@mf/fleet';
import { DashboardSession } from '../support/dashboard-session';
import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { sdkCli } from '../support/sdk-cli';

const run = promisify(execFile);
const PASSWORD = 'correct horse battery';

/** A command's exit code and output, whether it succeeded or not. */
async function runCommand(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * A job shows what it was asked (input), GET /api/v1/jobs lists them, and the messages a new user
 * meets say what happened: the refund of a job the user cancelled, the CLI's mistyped flag, a
 * server that cannot be reached, the admin CLI's help, the API reference's own wording.
 */
describe('job inputs, the job list and the wording around them', () => {
  let fleet: PooledFleet;
  let user: TestUser;

  beforeAll(async () => {
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'video:write,image:write,jobs:read', 20_000);
  }, 240_000);
  afterAll(async () => {});

  const submit = async (kind: 'video' | 'image', body: object, key = user.key): Promise<string> => {
    const res = await api(
      fleet,
      'POST',
      kind === 'video' ? '/api/v1/video/vidgen-2/generate' : '/api/v1/image/imagegen/generate',
      { key, body },
    );
    expect(res.status).toBe(202);
    return res.body.job_id;
  };
  const ids = (res: { body: { jobs: { job_id: string }[] } }) => res.body.jobs.map((j) => j.job_id);

  it('keeps the accepted input of a job, defaults applied and the seed used, as an addition to the Job object', async () => {
    const video = await submit('video', {
      prompt: 'a heron lifting off a lake',
      duration_seconds: 4,
      resolution: '480p',
    });
    const image = await submit('image', { prompt: 'a heron, ink drawing', num_images: 2, seed: 42 });
    const v = (await api(fleet, 'GET', `/api/v1/jobs/${video}`, { key: user.key })).body;
    expect(v.input).toEqual({
      prompt: 'a heron lifting off a lake',
      image_url: null,
      fast: false,
      duration_seconds: 4,
      aspect_ratio: '16:9',
      resolution: '480p',
      generate_audio: true,
      seed: expect.any(Number),
    });
    expect(v).toMatchObject({ source: 'api', project_id: null, credits_consumed: 404 });
    const i = (await api(fleet, 'GET', `/api/v1/jobs/${image}`, { key: user.key })).body;
    expect(i.input).toEqual({
      prompt: 'a heron, ink drawing',
      image_urls: [],
      num_images: 2,
      aspect_ratio: '1:1',
      seed: 42,
    });
    // The seed makes it reproducible: sending the input again gives the same bytes.
    const again = await submit('image', i.input);
    expect((await api(fleet, 'GET', `/api/v1/jobs/${again}`, { key: user.key })).body.input).toEqual(i.input);
  });

  it('lists the owner’s jobs of every key, newest first, in pages that say has_more, with filters', async () => {
    const other = await userWithKey(fleet, 'image:write,jobs:read', 1000);
    const theirs = await submit('image', { prompt: 'not yours' }, other.key);
    const secondKey = String(
      (await fleet.admin('key:create', '--email', user.email, '--scopes', 'image:write,jobs:read')).key,
    );
    const mine = [
      await submit('image', { prompt: 'one' }),
      await submit('image', { prompt: 'two' }, secondKey),
      await submit('video', { prompt: 'three', duration_seconds: 15 }),
    ];
    await api(fleet, 'DELETE', `/api/v1/jobs/${mine[2]}`, { key: user.key });

    const all = await api(fleet, 'GET', '/api/v1/jobs?limit=100', { key: user.key });
    expect(all.headers.get('cache-control')).toBe('no-store');
    expect(ids(all).slice(0, 3)).toEqual([...mine].reverse());
    expect(ids(all)).not.toContain(theirs);
    expect(all.body.has_more).toBe(false);
    expect(all.body.jobs[0]).toMatchObject({ status: 'cancelled', input: { prompt: 'three' }, source: 'api' });
    expect(all.body.jobs[0]).not.toHaveProperty('api_key_id');

    const first = await api(fleet, 'GET', '/api/v1/jobs?limit=2', { key: user.key });
    expect([ids(first), first.body.has_more]).toEqual([[mine[2], mine[1]], true]);
    const next = await api(fleet, 'GET', `/api/v1/jobs?limit=2&starting_after=${mine[1]}`, { key: user.key });
    expect(ids(next)[0]).toBe(mine[0]);

    expect(ids(await api(fleet, 'GET', '/api/v1/jobs?status=cancelled', { key: user.key }))).toEqual([mine[2]]);
    expect(ids(await api(fleet, 'GET', '/api/v1/jobs?type=video&status=', { key: user.key }))[0]).toBe(mine[2]);
    expect(
      (await api(fleet, 'GET', '/api/v1/jobs?model=imagegen-2', { key: user.key })).body.jobs.every(
        (j: { model: string }) => j.model === 'ImageGen 2',
      ),
    ).toBe(true);
    expect((await api(fleet, 'GET', `/api/v1/jobs?starting_after=${theirs}`, { key: user.key })).body).toEqual({
      jobs: [],
      has_more: false,
    });

    // The SDK walks every page.
    const client = new MediaforgeClient({ baseUrl: fleet.baseUrl, apiKey: user.key });
    const walked: string[] = [];
    for await (const job of client.listAllJobs({ limit: 2 })) walked.push(job.job_id);
    expect(walked).toEqual(ids(all));
  });

  it('names what is wrong with a list request, and asks for jobs:read', async () => {
    const bad = async (q: string) => (await api(fleet, 'GET', `/api/v1/jobs${q}`, { key: user.key })).body;
    expect(await bad('?stauts=failed')).toEqual({
      error:
        'unknown query parameter: stauts (accepted: limit, starting_after, status, model, type, created[gte], created[lte])',
    });
    expect(await bad('?limit=0')).toEqual({ error: 'limit must be an integer between 1 and 100' });
    expect(await bad('?status=done')).toEqual({
      error: 'status must be one of processing, completed, failed, cancelled',
    });
    expect(await bad('?model=VidGen%202.0')).toEqual({
      error: 'model must be one of vidgen-2.0, vidgen-2.0-fast, imagegen-2',
    });
    expect(await bad('?type=video&type=image')).toEqual({ error: 'type must be given once, as a plain value' });
    const writer = await userWithKey(fleet, 'video:write', 0);
    const refused = await api(fleet, 'GET', '/api/v1/jobs', { key: writer.key });
    expect([refused.status, refused.body]).toEqual([
      403,
      { error: 'This API key lacks the required scope: jobs:read', required_scope: 'jobs:read' },
    ]);
  });

  it('says "cancelled by you" on the ledger line of the refund of a job its owner cancelled', async () => {
    const email = `ledger${Date.now()}@example.test`;
    await fleet.admin('user:create', '--email', email, '--password', PASSWORD, '--credits', '5000');
    const key = String((await fleet.admin('key:create', '--email', email, '--scopes', 'video:write')).key);
    const job = await submit('video', { prompt: 'cancel me', duration_seconds: 15 }, key);
    expect((await api(fleet, 'DELETE', `/api/v1/jobs/${job}`, { key })).body).toEqual({
      job_id: job,
      status: 'cancelled',
      refunded_credits: 3405,
    });
    const s = new DashboardSession(fleet.baseUrl);
    await s.signIn(email, PASSWORD);
    expect(
      (await s.get('/ledger?limit=2')).body.entries.map(
        (e: { kind: string; delta: number; description: string; reference: string }) => [
          e.kind,
          e.delta,
          e.description,
          e.reference,
        ],
      ),
    ).toEqual([
      ['refund', 3405, 'cancelled by you', `job:${job}`],
      ['charge', -3405, 'vidgen-2.0 job', `job:${job}`],
    ]);
  });

  describe('the CLI and the admin CLI', () => {
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runCommand(process.execPath, [...sdkCli(), ...args], {
        MEDIAFORGE_API_KEY: user.key,
        MEDIAFORGE_BASE_URL: fleet.baseUrl,
        ...env,
      });

    it('names a mistyped flag and the one meant, before submitting anything', async () => {
      const res = await cli(['generate', 'video', '--promt', 'a heron', '--duration', '4']);
      expect(res.code).toBe(2);
      expect(res.stderr.split('\n')[0]).toBe(
        'unknown option --promt (did you mean --prompt?). Options of this command: --prompt, --duration, --resolution, --aspect, --no-audio, --fast, --image-url, --seed, --wait, --out.',
      );
      expect(res.stdout).toBe('');
      expect((await cli(['jbos'])).stderr.split('\n')[0]).toBe('unknown command: jbos (did you mean jobs?)');
    });

    it('lists jobs with filters', async () => {
      const res = await cli(['jobs', '--type', 'image', '--limit', '2']);
      expect(res.code).toBe(0);
      const page = JSON.parse(res.stdout);
      expect(page.jobs).toHaveLength(2);
      expect(
        page.jobs.every(
          (j: { type: string; input: { prompt: string } }) => j.type === 'image' && typeof j.input.prompt === 'string',
        ),
      ).toBe(true);
      expect(page.has_more).toBe(true);
    });

    it('says which URL it could not reach when the server is down', async () => {
      const port = await new Promise<number>((resolve) => {
        const srv = net.createServer().listen(0, '127.0.0.1', () => {
          const { port: p } = srv.address() as net.AddressInfo;
          srv.close(() => resolve(p));
        });
      });
      const res = await cli(['account'], { MEDIAFORGE_BASE_URL: `http://127.0.0.1:${port}` });
      expect(res.code).toBe(1);
      expect(res.stderr.trim()).toBe(
        `error: GET http://127.0.0.1:${port}/api/v1/account: could not reach http://127.0.0.1:${port} (ECONNREFUSED). Is the server running, and is the base URL right?`,
      );
    }, 60_000);

    it('prints the admin command list for --help', async () => {
      const res = await runCommand('bash', ['scripts/admin.sh', '--help'], fleet.env);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^usage: npm run --silent admin -- <command> \[flags\]/);
      for (const command of [
        'user:create',
        'user:role',
        'key:create',
        'key:revoke',
        'credits:grant',
        'webhook:set',
        'webhook:clear',
        'webhook:deliveries',
      ])
        expect(res.stdout).toContain(command);
    }, 60_000);
  });

  it('describes the API in the reference without internal wording', async () => {
    const text = await (await fetch(`${fleet.baseUrl}/api/v1/openapi.json`)).text();
    for (const internal of ['docs/', '.md', 'of ours', 'the contract', 'api-behaviour'])
      expect({ internal, found: text.includes(internal) }).toEqual({ internal, found: false });
    const doc = JSON.parse(text);
    expect(doc.paths['/api/v1/jobs'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'limit',
      'starting_after',
      'status',
      'model',
      'type',
      'created[gte]',
      'created[lte]',
    ]);
  });
});
