import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@mf/fleet';
import { Client } from 'pg';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';

const run = promisify(execFile);

describe('the public API of the fleet (foundation)', () => {
  let fleet: Fleet;
  let all: TestUser;

  beforeAll(async () => {
    fleet = await startFleet();
    all = await userWithKey(fleet, 'all');
  }, 180_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  describe('authentication', () => {
    it('answers 401 "Missing Authorization header" without the header', async () => {
      const res = await api(fleet, 'GET', '/api/v1/account');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Missing Authorization header' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('answers 401 "Invalid or revoked API key" for an unknown key and a malformed header', async () => {
      for (const authorization of [
        'Bearer mf_live_doesnotexist0000000000000000000000000000',
        'Basic dXNlcjpwYXNz',
        'Bearer',
        "Bearer ' OR 1=1 --",
      ]) {
        const res = await api(fleet, 'GET', '/api/v1/account', { headers: { authorization } });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
      }
    });

    it('rejects a key with 401 as soon as it is revoked', async () => {
      const u = await userWithKey(fleet, 'models:read');
      expect((await api(fleet, 'GET', '/api/v1/account', { key: u.key })).status).toBe(200);
      const revoked = await fleet.admin('key:revoke', '--id', String(u.keyId));
      expect(revoked).toMatchObject({ id: u.keyId });
      const res = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
    });

    it('does not parse the body of an unauthenticated request', async () => {
      const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', { body: '{not json' });
      expect(res.status).toBe(401);
    });
  });

  describe('scopes', () => {
    const scoped: [string, string, string][] = [
      ['POST', '/api/v1/video/vidgen-2/generate', 'video:write'],
      ['POST', '/api/v1/image/imagegen/generate', 'image:write'],
      ['GET', '/api/v1/media-studio/projects', 'video-editor:read'],
      ['GET', '/api/v1/media-studio/projects/p1', 'video-editor:read'],
      ['POST', '/api/v1/media-studio/projects', 'video-editor:write'],
      ['POST', '/api/v1/media-studio/projects/p1/instruct', 'video-editor:write'],
      ['POST', '/api/v1/media-studio/projects/p1/export', 'video-editor:write'],
    ];

    let modelsOnly: TestUser;
    beforeAll(async () => {
      modelsOnly = await userWithKey(fleet, 'models:read');
    });

    it.each(scoped)('answers 403 naming the scope for %s %s without %s', async (method, path, scope) => {
      const u = modelsOnly;
      const res = await api(fleet, method, path, { key: u.key, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain(scope);
    });

    it('lets a key with the scope past the check', async () => {
      const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', { key: all.key, body: {} });
      expect(res.status).not.toBe(403);
      expect(res.status).not.toBe(401);
    });

    it('serves /models to a key created with no scope at all (models:read is on every key)', async () => {
      const created = await fleet.admin('user:create', '--email', 'noscope@example.test');
      expect(created).toMatchObject({ email: 'noscope@example.test' });
      const key = await fleet.admin('key:create', '--email', 'noscope@example.test', '--scopes', 'models:read');
      expect(key.scopes).toEqual(['models:read']);
      expect((await api(fleet, 'GET', '/api/v1/models', { key: String(key.key) })).status).toBe(200);
    });
  });

  describe('GET /api/v1/models', () => {
    it('lists the three catalog models with the contract figures', async () => {
      const res = await api(fleet, 'GET', '/api/v1/models', { key: all.key });
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(res.body.models.map((m: { id: string }) => [m.id, m]));
      expect(Object.keys(byId).sort()).toEqual(['imagegen-2', 'vidgen-2.0', 'vidgen-2.0-fast']);
      for (const m of res.body.models) {
        for (const field of [
          'id',
          'type',
          'name',
          'provider',
          'description',
          'capabilities',
          'fal_endpoints',
          'params',
          'credits',
        ])
          expect(m).toHaveProperty(field);
      }
      expect(byId['vidgen-2.0']).toMatchObject({
        type: 'video',
        capabilities: ['text-to-video', 'image-to-video'],
        credits: {
          base_per_second: 227,
          per_second_by_resolution: { '480p': 101, '720p': 227 },
          audio_surcharge_per_second: 0,
          example_5s_with_audio: 1135,
        },
      });
      expect(byId['vidgen-2.0-fast']).toMatchObject({
        type: 'video',
        capabilities: ['text-to-video'],
        credits: {
          base_per_second: 181,
          per_second_by_resolution: { '480p': 181, '720p': 181 },
          audio_surcharge_per_second: 0,
          example_5s_with_audio: 905,
        },
      });
      expect(byId['imagegen-2']).toMatchObject({ type: 'image', credits: { per_image: 50 } });
      expect(byId['vidgen-2.0'].params.duration_seconds).toMatchObject({
        type: 'integer',
        default: 5,
        enum: [4, 5, 6, 8, 10, 15],
      });
      expect(byId['vidgen-2.0'].params.resolution).toMatchObject({ default: '720p', enum: ['480p', '720p'] });
      expect(byId['vidgen-2.0'].params.aspect_ratio).toMatchObject({
        default: '16:9',
        enum: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'],
      });
      expect(byId['imagegen-2'].params.num_images).toMatchObject({ default: 1, min: 1, max: 4 });
      expect(byId['vidgen-2.0'].fal_endpoints).toEqual({
        'text-to-video': 'fal-ai/vidgen-2/text-to-video',
        'image-to-video': 'fal-ai/vidgen-2/image-to-video',
      });
    });
  });

  describe('GET /api/v1/account', () => {
    /** A new key: no limits set, nothing spent or running. */
    const NO_KEY_LIMITS = { spend_limit: null, spent_this_period: 0, max_concurrent_jobs: null, active_jobs: 0 };

    it('shows zeros for a user without a balance record, then the grant after credits:grant', async () => {
      const u = await userWithKey(fleet, 'video:write,image:write');
      const before = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
      expect(before.status).toBe(200);
      expect(before.headers.get('cache-control')).toBe('no-store');
      expect(before.body).toEqual({
        credits_remaining: 0,
        credits_used_this_period: 0,
        credits_total_this_period: 0,
        api_key: { id: u.keyId, scopes: ['models:read', 'video:write', 'image:write'] },
        ...NO_KEY_LIMITS,
      });

      // Exactly as the README shows the admin CLI.
      const { stdout } = await run(
        'npm',
        ['run', '--silent', 'admin', '--', 'credits:grant', '--email', u.email, '--amount', '2500'],
        { cwd: REPO_ROOT, env: { ...process.env, ...fleet.env } },
      );
      expect(JSON.parse(stdout)).toEqual({ credits_remaining: 2500 });

      const after = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
      expect(after.body).toEqual({
        credits_remaining: 2500,
        credits_used_this_period: 0,
        credits_total_this_period: 2500,
        api_key: { id: u.keyId, scopes: ['models:read', 'video:write', 'image:write'] },
        ...NO_KEY_LIMITS,
      });
    });

    it('shows the credits given at user creation', async () => {
      const u = await userWithKey(fleet, 'models:read', 1135);
      expect((await api(fleet, 'GET', '/api/v1/account', { key: u.key })).body.credits_remaining).toBe(1135);
    });
  });

  describe('rate limit', () => {
    it('allows 60 requests a minute per key, then answers 429 with Retry-After; other keys are unaffected', async () => {
      const u = await userWithKey(fleet, 'models:read');
      for (let i = 1; i <= 60; i++) {
        const res = await api(fleet, 'GET', '/api/v1/models', { key: u.key });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('60');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
      }
      const limited = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body).toMatchObject({
        error: expect.stringContaining('Rate limit exceeded'),
        retry_after: retryAfter,
      });
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

      const other = await userWithKey(fleet, 'models:read');
      expect((await api(fleet, 'GET', '/api/v1/models', { key: other.key })).status).toBe(200);
    });
  });

  describe('usage records', () => {
    it('stores one row per authenticated request, refused ones included, and stamps the key as used', async () => {
      const u = await userWithKey(fleet, 'models:read');
      await api(fleet, 'GET', '/api/v1/models', { key: u.key });
      const forbidden = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', { key: u.key, body: {} });
      expect(forbidden.status).toBe(403);
      await api(fleet, 'GET', '/api/v1/account'); // unauthenticated: nobody's usage
      const db = new Client({ connectionString: fleet.env.DATABASE_URL });
      await db.connect();
      try {
        let rows: { method: string; path: string; status: number; request_id: string }[] = [];
        for (let i = 0; i < 50 && rows.length < 2; i++) {
          rows = (
            await db.query(
              'SELECT method, path, status, request_id FROM gateway.usage WHERE api_key_id = $1 ORDER BY id',
              [u.keyId],
            )
          ).rows;
          if (rows.length < 2) await new Promise((r) => setTimeout(r, 100));
        }
        expect(rows.map((r) => [r.method, r.path, r.status])).toEqual([
          ['GET', '/api/v1/models', 200],
          ['POST', '/api/v1/image/imagegen/generate', 403],
        ]);
        expect(rows[1].request_id).toBe(forbidden.headers.get('x-request-id'));
        const key = await db.query('SELECT last_used_at FROM gateway.api_keys WHERE id = $1', [u.keyId]);
        expect(key.rows[0].last_used_at).not.toBeNull();
      } finally {
        await db.end();
      }
    });
  });

  describe('request bodies', () => {
    it('answers 400 "Invalid JSON body" to an authenticated request with a broken body', async () => {
      const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', { key: all.key, body: '{"prompt": ' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid JSON body' });
    });

    it('answers 413 with a JSON error to a body over the limit', async () => {
      const res = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: all.key,
        body: JSON.stringify({ prompt: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatch(/too large/);
    });

    it('answers unknown paths with a JSON 404', async () => {
      const res = await api(fleet, 'GET', '/api/v1/nothing-here', { key: all.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    });
  });

  describe('admin CLI', () => {
    /**
     * The CLI the fleet's build ships (dist/admin.js); `npm run admin` (the README's form, from the
     * sources under tsx: about four times the CPU a start) runs it once below.
     */
    const spawnCli = (command: string, args: string[]) =>
      run(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...fleet.env } }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const cli = (...args: string[]) => spawnCli(process.execPath, ['services/gateway/dist/admin.js', ...args]);
    const npmRunAdmin = (...args: string[]) => spawnCli('npm', ['run', '--silent', 'admin', '--', ...args]);

    it('prints one JSON object per command, the full key only from key:create', async () => {
      const user = await npmRunAdmin(
        'user:create',
        '--email',
        'cli@example.test',
        '--password',
        'correct horse',
        '--credits',
        '10',
      );
      expect(user.code).toBe(0);
      expect(JSON.parse(user.stdout)).toEqual({ user_id: expect.any(Number), email: 'cli@example.test' });
      const key = JSON.parse(
        (await cli('key:create', '--email', 'cli@example.test', '--scopes', 'image:write', '--name', 'ci')).stdout,
      );
      expect(key).toEqual({
        id: expect.any(Number),
        key: expect.stringMatching(/^mf_live_/),
        prefix: key.key.slice(0, 16),
        scopes: ['models:read', 'image:write'],
      });
      const revoked = JSON.parse((await cli('key:revoke', '--id', String(key.id))).stdout);
      expect(revoked).toEqual({ id: key.id, revoked_at: expect.any(String) });
      expect(JSON.stringify(revoked)).not.toContain(key.key);
    });

    it('fails with a clear message on stderr and a non-zero exit, printing nothing on stdout', async () => {
      const cases: [string[], number, RegExp][] = [
        [['user:create', '--email', 'cli@example.test'], 1, /already exists/],
        [['key:create', '--email', 'nobody@example.test', '--scopes', 'all'], 1, /no user with email/],
        [['key:create', '--email', 'cli@example.test', '--scopes', 'video:admin'], 1, /unknown scope: video:admin/],
        [['credits:grant', '--email', 'cli@example.test', '--amount', 'abc'], 2, /--amount must be a positive integer/],
        [['key:revoke'], 2, /--id is required/],
        [['frobnicate'], 2, /unknown command: frobnicate/],
      ];
      for (const [args, code, message] of cases) {
        const r = await cli(...args);
        expect([args.join(' '), r.code]).toEqual([args.join(' '), code]);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      }
    });
  });

  describe('every service', () => {
    it('serves /healthz, /readyz and /metrics on its own port', async () => {
      for (const [name, port] of Object.entries(fleet.ports)) {
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect([name, health.status]).toEqual([name, 200]);
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect([name, ready.status]).toEqual([name, 200]);
        expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', broker: 'ok' } });
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics).toContain(`service="${name}"`);
        expect(metrics).toContain('process_resident_memory_bytes');
      }
    });
  });
});
