import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createDb, migrate, type Knex } from '@mf/db';
import { AppError, kindOfHttpStatus } from '@mf/errors';
import { createHttpApp, finish, jsonBody } from '@mf/http';
import { createTestDatabase, silentLogger, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { abortableSleep } from '../src/core/idempotency/acquire';
import { forwardedIdempotency, idempotency } from '../src/http/idempotency.middleware';
import { pgKeyStore } from '../src/core/idempotency/pg-key-store';
import { insertUser } from '../src/core/repositories/users.repository';

const HOUR = 3_600_000;
const TTL_MS = 24 * HOUR;
const LEASE_MS = 60_000;
const REUSED = {
  error:
    'Idempotency-Key has already been used with a different request (endpoint or body); use a new key for a new request',
};

/** Polls a condition that follows from requests in flight (never a timing assertion). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The Idempotency-Key middleware against the real database, in an app shaped like /api/v1 (auth,
 * JSON body, the middleware, routes, the error handler), with a route that counts its runs and can
 * be held open. The clock is real time plus a skew the test moves (expiry, lease takeover).
 */
describe('Idempotency-Key', () => {
  let database: TestDatabase;
  let db: Knex;
  let server: http.Server;
  let base: string;
  let skew = 0;
  let runs: unknown[] = [];
  let waits = 0;
  let abandoned = 0;
  let generateDown = false;
  const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
  let alice: number;
  let bob: number;
  let n = 0;

  const gate = (name: string) => {
    if (!gates.has(name)) {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      gates.set(name, { open, opened });
    }
    return gates.get(name)!;
  };

  function buildApp(): Express {
    const logger = silentLogger();
    const app = createHttpApp({ logger });
    // Stand-in for authenticate: the user and key come from test headers.
    app.use((req, _res, next) => {
      req.auth = { userId: Number(req.header('x-user')), apiKeyId: Number(req.header('x-key') ?? 1), scopes: [] };
      next();
    });
    app.use(jsonBody('1mb'));
    app.use(
      idempotency({
        store: pgKeyStore(db),
        logger,
        ttlMs: TTL_MS,
        leaseMs: () => LEASE_MS,
        pollMs: 20,
        now: () => new Date(Date.now() + skew),
        sleep: async (ms, signal) => {
          waits++;
          const slept = await abortableSleep(ms, signal);
          if (!slept) abandoned++;
          return slept;
        },
      }),
    );
    // Answers with the status asked for in the body, after the gate it names (if any) opens.
    const work = async (
      req: { body?: { status?: number; hold?: string; throws?: boolean } },
      res: { status: (s: number) => { json: (b: unknown) => void } },
    ) => {
      const run = runs.push(req.body);
      if (req.body?.hold) await gate(req.body.hold).opened;
      if (req.body?.throws)
        throw new AppError(kindOfHttpStatus(req.body.status ?? 500), { error: `refused on run ${run}` });
      res
        .status(req.body?.status ?? 202)
        .json({ run, job_id: `job_${run}`, model: 'imagegen-2', status: 'processing' });
    };
    // A stand-in for a generate route: records what it would forward to jobs, and is "unavailable"
    // (503, outcome unknown) while generateDown is set.
    app.post('/api/v1/image/imagegen/generate', (_req, res) => {
      runs.push(forwardedIdempotency(res));
      if (generateDown) throw AppError.unavailable();
      res.status(202).json({ job_id: 'job_gen', status: 'processing' });
    });
    app.post('/api/v1/things', work);
    app.post('/api/v1/other-things', work);
    app.get('/api/v1/things', (_req, res) => {
      runs.push('GET');
      res.json({ ok: true });
    });
    finish(app, logger);
    return app;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'gateway', poolMax: 8 });
    await migrate(db, 'gateway', migrations);
    alice = (await insertUser(db, { email: 'alice@example.test', password_hash: null })).id;
    bob = (await insertUser(db, { email: 'bob@example.test', password_hash: null })).id;
    server = buildApp().listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const g of gates.values()) g.open();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await db?.destroy();
    await database?.drop();
  });
  beforeEach(() => {
    skew = 0;
    runs = [];
    waits = 0;
    abandoned = 0;
  });

  const newKey = () => `key-${Date.now()}-${n++}`;
  const post = async (
    body: unknown,
    opts: { key?: string; user?: number; apiKey?: number; path?: string; signal?: AbortSignal } = {},
  ) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-user': String(opts.user ?? alice),
      'x-key': String(opts.apiKey ?? 1),
    };
    if (opts.key !== undefined) headers['idempotency-key'] = opts.key;
    const res = await fetch(`${base}${opts.path ?? '/api/v1/things'}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: opts.signal,
    });
    return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
  };
  const record = (key: string, user = alice) => db('idempotency_keys').first('*').where({ user_id: user, key });

  it('runs five parallel requests with one key once; all get the same status and the same bytes, the retries marked as replays', async () => {
    const key = newKey();
    const body = { prompt: 'a fox', hold: `parallel-${key}` };
    const all = Promise.all([0, 1, 2, 3, 4].map(() => post(body, { key })));
    await until(() => runs.length === 1 && waits >= 4, 'one run and four waiting requests');
    gate(body.hold).open();
    const answers = await all;
    expect(runs).toHaveLength(1);
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1);
    expect(answers[0]).toMatchObject({ status: 202 });
    expect(JSON.parse(answers[0].text)).toEqual({ run: 1, job_id: 'job_1', model: 'imagegen-2', status: 'processing' });
    expect(answers.map((a) => a.replayed).sort()).toEqual([null, 'true', 'true', 'true', 'true']);
  });

  it('replays a finished request without running it, whatever the key order or spacing of the body', async () => {
    const key = newKey();
    const first = await post('{"prompt":"a fox","num_images":2}', { key });
    const again = await post('{ "num_images": 2,\n  "prompt": "a fox" }', { key });
    expect(runs).toHaveLength(1);
    expect(first.replayed).toBeNull();
    expect(again).toEqual({ ...first, replayed: 'true' });
  });

  it('frees the key after a 503 of a generate request and forwards the same key digest to jobs on the retry', async () => {
    const key = newKey();
    const path = '/api/v1/image/imagegen/generate';
    generateDown = true;
    const first = await post({ prompt: 'unknown outcome' }, { key, path });
    expect(first.status).toBe(503);
    expect(await record(key)).toBeUndefined();
    generateDown = false;
    const retry = await post({ prompt: 'unknown outcome' }, { key, path });
    expect(retry).toMatchObject({ status: 202, replayed: null });
    expect(runs).toHaveLength(2);
    expect(runs[0]).toEqual({ key: expect.stringMatching(/^[0-9a-f]{64}$/), window_hours: 24 });
    expect(runs[1]).toEqual(runs[0]);
    // The digest belongs to the key and the request: another key forwards another digest.
    await post({ prompt: 'unknown outcome' }, { key: newKey(), path });
    expect(runs[2]).not.toEqual(runs[0]);
    // Without a key nothing is forwarded.
    await post({ prompt: 'no key' }, { path });
    expect(runs[3]).toBeUndefined();
  });

  it('has stored the answer by the time the client receives it', async () => {
    const key = newKey();
    const res = await post({ prompt: 'stored first' }, { key });
    expect(await record(key)).toMatchObject({
      state: 'done',
      response_status: 202,
      response_body: JSON.parse(res.text),
    });
  });

  it('refuses the same key with another body or another endpoint with a 422, doing nothing', async () => {
    const key = newKey();
    const first = await post({ prompt: 'a fox' }, { key });
    const otherBody = await post({ prompt: 'a dog' }, { key });
    const otherPath = await post({ prompt: 'a fox' }, { key, path: '/api/v1/other-things' });
    expect([otherBody.status, JSON.parse(otherBody.text)]).toEqual([422, REUSED]);
    expect([otherPath.status, JSON.parse(otherPath.text)]).toEqual([422, REUSED]);
    expect(runs).toHaveLength(1);
    // The 422 is not stored: the key still replays the first answer.
    expect(await post({ prompt: 'a fox' }, { key })).toEqual({ ...first, replayed: 'true' });
  });

  it('keeps the keys of two users apart, and shares a key between the API keys of one user', async () => {
    const key = newKey();
    const a = await post({ prompt: 'a fox' }, { key, user: alice, apiKey: 1 });
    const b = await post({ prompt: 'a fox' }, { key, user: bob });
    const a2 = await post({ prompt: 'a fox' }, { key, user: alice, apiKey: 2 });
    expect(runs).toHaveLength(2);
    expect(JSON.parse(b.text)).toMatchObject({ run: 2 });
    expect(b.replayed).toBeNull();
    expect(a2).toEqual({ ...a, replayed: 'true' });
  });

  it.each([400, 401, 403, 429])(
    'releases the key after a %i: the request did nothing, and may be fixed and retried with the same key',
    async (status) => {
      const key = newKey();
      const refused = await post({ status, throws: true }, { key });
      expect(refused.status).toBe(status);
      expect(await record(key)).toBeUndefined();
      const fixed = await post({ prompt: 'fixed' }, { key });
      expect([fixed.status, fixed.replayed]).toEqual([202, null]);
      expect(runs).toHaveLength(2);
    },
  );

  it.each([402, 404, 409, 500, 502, 503])('stores a %i and replays it, like any answer', async (status) => {
    const key = newKey();
    const first = await post({ status, throws: true }, { key });
    expect(first.status).toBe(status);
    const again = await post({ status, throws: true }, { key });
    expect(again).toEqual({ ...first, replayed: 'true' });
    expect(runs).toHaveLength(1);
  });

  it('runs again once the key has expired, even with another body', async () => {
    const key = newKey();
    await post({ prompt: 'day one' }, { key });
    skew = TTL_MS;
    const later = await post({ prompt: 'day two' }, { key });
    expect([later.status, later.replayed, JSON.parse(later.text).run]).toEqual([202, null, 2]);
    expect(await record(key)).toMatchObject({ state: 'done', response_body: JSON.parse(later.text) });
  });

  it('lets exactly one waiter take over a request whose lease passed, and the others replay its answer', async () => {
    const key = newKey();
    const body = { prompt: 'slow', hold: `lease-${key}` };
    const stuck = post(body, { key });
    await until(() => runs.length === 1, 'the first run');
    skew = LEASE_MS + 1;
    const retries = Promise.all([0, 1, 2].map(() => post(body, { key })));
    await until(() => runs.length === 2 && waits >= 2, 'the takeover run and two waiting requests');
    gate(body.hold).open();
    const answers = await retries;
    expect(runs).toHaveLength(2);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(JSON.parse(answers[0].text)).toMatchObject({ run: 2 });
    expect(answers.map((a) => a.replayed).sort()).toEqual([null, 'true', 'true']);
    // The presumed-dead first run still answers its own client, but cannot overwrite the stored answer.
    expect(JSON.parse((await stuck).text)).toMatchObject({ run: 1 });
    expect(await record(key)).toMatchObject({ response_body: { run: 2 } });
  });

  it('stops waiting when the client of a waiting request disconnects', async () => {
    const key = newKey();
    const body = { prompt: 'slow', hold: `leave-${key}` };
    const first = post(body, { key });
    await until(() => runs.length === 1, 'the first run');
    const ac = new AbortController();
    const leaving = post(body, { key, signal: ac.signal }).catch((e: unknown) => e);
    await until(() => waits >= 1, 'the retry to wait');
    ac.abort();
    await until(() => abandoned === 1, 'the wait to stop');
    expect(await leaving).toMatchObject({ name: 'AbortError' });
    gate(body.hold).open();
    expect((await first).status).toBe(202);
    expect(runs).toHaveLength(1);
  });

  it('refuses a key that is empty or longer than 255 characters, and stores nothing', async () => {
    for (const key of ['', 'k'.repeat(256)]) {
      const res = await post({ prompt: 'x' }, { key });
      expect([res.status, JSON.parse(res.text)]).toEqual([400, { error: 'Idempotency-Key must be 1-255 characters' }]);
    }
    expect(runs).toHaveLength(0);
    expect((await post({ prompt: 'x' }, { key: 'k'.repeat(255) })).status).toBe(202);
  });

  it('changes nothing without the header, or on a GET', async () => {
    await post({ prompt: 'x' });
    await post({ prompt: 'x' });
    const key = newKey();
    for (let i = 0; i < 2; i++)
      await fetch(`${base}/api/v1/things`, { headers: { 'x-user': String(alice), 'idempotency-key': key } });
    expect(runs).toEqual([{ prompt: 'x' }, { prompt: 'x' }, 'GET', 'GET']);
    expect(await record(key)).toBeUndefined();
  });

  it('stores nothing for a body that is not JSON (refused before the middleware)', async () => {
    const key = newKey();
    const res = await post('{"prompt": ', { key });
    expect(res.status).toBe(400);
    expect(await record(key)).toBeUndefined();
  });

  it('purges expired records only', async () => {
    const store = pgKeyStore(db);
    const fresh = newKey();
    const old = newKey();
    await post({ prompt: 'fresh' }, { key: fresh });
    skew = -TTL_MS - 1000;
    await post({ prompt: 'old' }, { key: old });
    skew = 0;
    expect(await store.purgeExpired(new Date(), 1000)).toBeGreaterThanOrEqual(1);
    expect(await record(old)).toBeUndefined();
    expect(await record(fresh)).toBeDefined();
  });
});
