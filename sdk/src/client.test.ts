import http from 'node:http';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  ExportError,
  InsufficientCreditsError,
  JobFailedError,
  MediaforgeClient,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  WaitTimeoutError,
} from './index';
import { pollForJob } from './streams';
import type { Job } from './types';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

/** A tiny local API: answers each request with the next scripted reply (the last one repeats). */
async function server(
  replies: Reply[] | ((seen: Seen, n: number) => Reply),
): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      seen.push(s);
      const r =
        typeof replies === 'function' ? replies(s, seen.length) : replies[Math.min(seen.length, replies.length) - 1];
      res.writeHead(r.status, {
        'content-type': 'application/json',
        'x-request-id': `req-${seen.length}`,
        ...(r.headers ?? {}),
      });
      res.end(r.body === undefined ? '' : JSON.stringify(r.body));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

const job = (status: string, extra: object = {}) => ({
  job_id: 'job_1',
  status,
  model: 'imagegen-2',
  type: 'image',
  credits_consumed: 50,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: status === 'processing' ? null : '2026-01-01T00:00:05.000Z',
  result: status === 'completed' ? { images: ['https://x.test/a.png'] } : null,
  error: status === 'failed' ? 'Generation timed out' : null,
  ...extra,
});

const submit = {
  job_id: 'job_1',
  status: 'processing',
  model: 'imagegen-2',
  credits_consumed: 50,
  credits_remaining: 950,
  poll_url: '/api/v1/jobs/job_1',
};

let srv: Awaited<ReturnType<typeof server>> | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});
const client = (url: string, extra: Partial<ConstructorParameters<typeof MediaforgeClient>[0]> = {}) =>
  new MediaforgeClient({ baseUrl: url, apiKey: 'mf_live_test', retryBaseMs: 10, retryMaxMs: 50, ...extra });

describe('MediaforgeClient requests', () => {
  it('sends the key, the user agent and JSON bodies to the contract paths', async () => {
    srv = await server([{ status: 202, body: submit }]);
    const c = client(`${srv.url}/`, { userAgent: 'my-app/2' });
    await expect(c.generateImage({ prompt: 'a cat', num_images: 2 })).resolves.toEqual(submit);
    await c.generateVideo({ prompt: 'a dog', duration_seconds: 4, resolution: '480p' });
    await c.getProject('prj_1', { videoId: 'vid_2' });
    await c.moveClip('prj_1', 'clp_3', { idx: 0 });
    await c.setAspectRatio('prj_1', { aspect_ratio: '1:1' });
    await c.renameVideo('prj_1', 'vid_2', { name: 'B' });
    await c.deleteAsset('prj_1', 'ast_9');
    expect(srv.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /api/v1/image/imagegen/generate',
      'POST /api/v1/video/vidgen-2/generate',
      'GET /api/v1/media-studio/projects/prj_1?video_id=vid_2',
      'PATCH /api/v1/media-studio/projects/prj_1/clips/clp_3',
      'PUT /api/v1/media-studio/projects/prj_1/aspect-ratio',
      'PATCH /api/v1/media-studio/projects/prj_1/videos/vid_2',
      'DELETE /api/v1/media-studio/projects/prj_1/assets/ast_9',
    ]);
    expect(srv.seen[0].headers.authorization).toBe('Bearer mf_live_test');
    expect(srv.seen[0].headers['user-agent']).toBe('my-app/2');
    expect(srv.seen[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(srv.seen[0].body)).toEqual({ prompt: 'a cat', num_images: 2 });
    expect(JSON.parse(srv.seen[3].body)).toEqual({ idx: 0 });
    expect(srv.seen[2].body).toBe('');
  });
});

describe('Idempotency-Key', () => {
  it('sends a fresh key with every POST and none with GET, PATCH, PUT or DELETE', async () => {
    srv = await server([{ status: 200, body: {} }]);
    const c = client(srv.url);
    await c.generateImage({ prompt: 'a' });
    await c.generateImage({ prompt: 'a' });
    await c.createProject();
    await c.getAccount();
    await c.renameProject('prj_1', { name: 'B' });
    await c.setAspectRatio('prj_1', { aspect_ratio: '1:1' });
    await c.cancelJob('job_1');
    const keys = srv.seen.map((s) => s.headers['idempotency-key']);
    expect(keys.slice(0, 3)).toEqual([
      expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      expect.any(String),
      expect.any(String),
    ]);
    expect(new Set(keys.slice(0, 3)).size).toBe(3);
    expect(keys.slice(3)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('sends the key given for the call', async () => {
    srv = await server([{ status: 202, body: submit }]);
    await client(srv.url).generateVideo({ prompt: 'x' }, { idempotencyKey: 'order-42-video' });
    expect(srv.seen[0].headers['idempotency-key']).toBe('order-42-video');
  });

  it('reuses the same key on its own retries', async () => {
    srv = await server([
      {
        status: 503,
        body: { error: 'Service temporarily unavailable, retry shortly', request_id: 'r1' },
        headers: { 'retry-after': '0' },
      },
      { status: 429, body: { error: 'Rate limit exceeded' }, headers: { 'retry-after': '0' } },
      { status: 202, body: submit },
    ]);
    await client(srv.url).generateImage({ prompt: 'x' });
    const keys = srv.seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });
});

describe('retries', () => {
  it('retries a 429 after the Retry-After seconds, then succeeds', async () => {
    srv = await server([
      { status: 429, body: { error: 'Rate limit exceeded', retry_after: 1 }, headers: { 'retry-after': '1' } },
      { status: 200, body: { models: [] } },
    ]);
    const t0 = Date.now();
    await expect(client(srv.url).listModels()).resolves.toEqual({ models: [] });
    expect(srv.seen).toHaveLength(2);
    expect(srv.seen[1].at - srv.seen[0].at).toBeGreaterThanOrEqual(990);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('retries a POST answered 429 and 503 (not processed), honouring Retry-After', async () => {
    srv = await server([
      {
        status: 503,
        body: { error: 'Service temporarily unavailable, retry shortly', request_id: 'r1' },
        headers: { 'retry-after': '0' },
      },
      { status: 429, body: { error: 'Rate limit exceeded' }, headers: { 'retry-after': '0' } },
      { status: 202, body: submit },
    ]);
    await expect(client(srv.url).generateImage({ prompt: 'x' })).resolves.toEqual(submit);
    expect(srv.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
  });

  it('does not retry a POST answered 500 or 502 (it may have been processed)', async () => {
    srv = await server([
      { status: 500, body: { error: 'Internal error', request_id: 'abc' } },
      { status: 202, body: submit },
    ]);
    const err = await client(srv.url)
      .generateVideo({ prompt: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      status: 500,
      requestId: 'req-1',
      body: { error: 'Internal error', request_id: 'abc' },
    });
    expect(srv.seen).toHaveLength(1);
  });

  it('retries a GET on 500 and gives up after maxRetries with the last error', async () => {
    srv = await server([{ status: 500, body: { error: 'Internal error' } }]);
    const err = await client(srv.url, { maxRetries: 2 })
      .getJob('job_1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(srv.seen).toHaveLength(3);
  });

  it('retries a DELETE after a network error', async () => {
    srv = await server([{ status: 200, body: { job_id: 'job_1', status: 'cancelled', refunded_credits: 50 } }]);
    let calls = 0;
    const flaky = (input: string, init?: RequestInit): Promise<Response> =>
      ++calls === 1 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
    await expect(client(srv.url, { fetch: flaky }).cancelJob('job_1')).resolves.toMatchObject({ refunded_credits: 50 });
    expect(calls).toBe(2);
  });

  it('retries a POST after a network error, with the same Idempotency-Key', async () => {
    srv = await server([{ status: 202, body: submit }]);
    const keys: (string | null)[] = [];
    let calls = 0;
    const flaky = (input: string, init?: RequestInit): Promise<Response> => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      return ++calls === 1 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
    };
    await expect(client(srv.url, { fetch: flaky }).generateVideo({ prompt: 'x' })).resolves.toEqual(submit);
    expect(calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('does not retry a replayed answer: it is final for its key', async () => {
    srv = await server([
      {
        status: 503,
        body: { error: 'Service temporarily unavailable, retry shortly', request_id: 'r1' },
        headers: { 'retry-after': '0', 'idempotent-replayed': 'true' },
      },
    ]);
    const err = await client(srv.url)
      .generateImage({ prompt: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(srv.seen).toHaveLength(1);
  });

  it('maxRetries 0 disables retries', async () => {
    srv = await server([{ status: 429, body: { error: 'Rate limit exceeded' }, headers: { 'retry-after': '7' } }]);
    const err = await client(srv.url, { maxRetries: 0 })
      .getAccount()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterSec).toBe(7);
    expect(srv.seen).toHaveLength(1);
  });
});

describe('typed errors', () => {
  const cases: [number, unknown, new (...a: never[]) => ApiError][] = [
    [400, { error: 'prompt is required (non-empty string)' }, ValidationError],
    [401, { error: 'Invalid or revoked API key' }, AuthenticationError],
    [
      403,
      { error: 'This API key lacks the required scope: video:write', required_scope: 'video:write' },
      PermissionError,
    ],
    [404, { error: 'Job not found' }, NotFoundError],
    [409, { error: 'Job is already completed and cannot be cancelled' }, ConflictError],
    [502, { error: 'Upstream provider error', request_id: 'x' }, ServerError],
  ];
  it.each(cases)('%i -> its class, with status, body and requestId', async (status, body, cls) => {
    srv = await server([{ status, body }]);
    const err = await client(srv.url, { maxRetries: 0 })
      .generateVideo({ prompt: 'p' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status, body, requestId: 'req-1', name: cls.name });
    expect((err as Error).message).toContain((body as { error: string }).error);
    if (cls === PermissionError) expect((err as PermissionError).requiredScope).toBe('video:write');
  });

  it('402 carries creditsRequired and creditsRemaining', async () => {
    srv = await server([
      { status: 402, body: { error: 'Insufficient credits', credits_required: 1135, credits_remaining: 10 } },
    ]);
    const err = await client(srv.url)
      .generateVideo({ prompt: 'p' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expect(err).toMatchObject({ status: 402, creditsRequired: 1135, creditsRemaining: 10 });
  });

  it('429 carries retryAfterSec', async () => {
    srv = await server([
      { status: 429, body: { error: 'Rate limit exceeded', retry_after: 12 }, headers: { 'retry-after': '12' } },
    ]);
    const err = await client(srv.url, { maxRetries: 0 })
      .listModels()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, retryAfterSec: 12 });
  });

  it('an export failure is an ExportError with code and message', async () => {
    srv = await server([{ status: 400, body: { error: 'no_video_clips', message: 'Add a video clip first.' } }]);
    const err = await client(srv.url)
      .exportVideo('prj_1', { fit: 'fill' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExportError);
    expect(err).toMatchObject({ status: 400, code: 'no_video_clips', exportMessage: 'Add a video clip first.' });
    expect(JSON.parse(srv.seen[0].body)).toEqual({ fit: 'fill' });
  });

  it('a non-JSON error body is kept as text', async () => {
    srv = await server(() => ({ status: 404, body: undefined }));
    const err = await client(srv.url)
      .getJob('nope')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as ApiError).body).toBeNull();
  });
});

describe('waitForJob', () => {
  it('polls with growing, capped intervals and resolves the completed job', async () => {
    let n = 0;
    srv = await server(() => ({ status: 200, body: ++n < 6 ? job('processing') : job('completed') }));
    const polls: string[] = [];
    const done = await client(srv.url).waitForJob('job_1', {
      stream: false,
      intervalMs: 40,
      maxIntervalMs: 100,
      onPoll: (j) => polls.push(j.status),
    });
    expect(done.status).toBe('completed');
    expect(polls).toEqual(['processing', 'processing', 'processing', 'processing', 'processing', 'completed']);
  });

  it('waits x1.5 longer after each poll, up to the cap (on a fake clock)', async () => {
    jest.useFakeTimers();
    try {
      const at: number[] = [];
      const getJob = async (): Promise<Job> => (
        at.push(Date.now()),
        job(at.length < 6 ? 'processing' : 'completed') as Job
      );
      const done = pollForJob(getJob, 'job_1', { intervalMs: 40, maxIntervalMs: 100 });
      // Each poll's wait elapses only when the fake clock is advanced past it.
      while (at.length < 6) await jest.advanceTimersToNextTimerAsync();
      expect((await done).status).toBe('completed');
      expect(at.slice(1).map((t, i) => t - at[i])).toEqual([40, 60, 90, 100, 100]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('rejects with JobFailedError carrying the job when it fails', async () => {
    srv = await server([
      { status: 200, body: job('processing') },
      { status: 200, body: job('failed') },
    ]);
    const err = await client(srv.url)
      .waitForJob('job_1', { stream: false, intervalMs: 5 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err).toMatchObject({ status: 'failed', job: { job_id: 'job_1', error: 'Generation timed out' } });
  });

  it('rejects with JobFailedError when the job is cancelled', async () => {
    srv = await server([{ status: 200, body: job('cancelled') }]);
    await expect(client(srv.url).waitForJob('job_1', { stream: false })).rejects.toMatchObject({
      name: 'JobFailedError',
      status: 'cancelled',
    });
  });

  it('rejects with WaitTimeoutError after timeoutMs', async () => {
    srv = await server([{ status: 200, body: job('processing') }]);
    await expect(
      client(srv.url).waitForJob('job_1', { stream: false, intervalMs: 20, timeoutMs: 120 }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
  });

  it('a polling 503 is retried, not fatal', async () => {
    srv = await server([
      {
        status: 503,
        body: { error: 'Service temporarily unavailable, retry shortly' },
        headers: { 'retry-after': '0' },
      },
      { status: 200, body: job('completed') },
    ]);
    await expect(client(srv.url).waitForJob('job_1', { stream: false })).resolves.toMatchObject({
      status: 'completed',
    });
  });

  it('falls back to polling when the server has no event stream for the job', async () => {
    // Every answer is the job as JSON, the stream's too: not an event stream, so wait polls.
    srv = await server(() => ({ status: 200, body: job('completed') }));
    await expect(client(srv.url).waitForJob('job_1', { intervalMs: 5 })).resolves.toMatchObject({
      status: 'completed',
    });
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/v1/jobs/job_1/events', '/api/v1/jobs/job_1']);
  });
});

describe('listing jobs', () => {
  it('sends the filters as the query, leaving out what was not given', async () => {
    srv = await server([{ status: 200, body: { jobs: [job('completed')], has_more: false } }]);
    const page = await client(srv.url).listJobs({ status: 'completed', type: 'image', limit: 5, model: undefined });
    expect(page).toEqual({ jobs: [job('completed')], has_more: false });
    expect(srv.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/v1/jobs?status=completed&type=image&limit=5',
    ]);
  });

  it('follows has_more page after page with starting_after, as the loop asks for jobs', async () => {
    const pages = [
      { jobs: [job('completed', { job_id: 'job_3' }), job('failed', { job_id: 'job_2' })], has_more: true },
      { jobs: [job('completed', { job_id: 'job_1' })], has_more: false },
    ];
    srv = await server((_seen, n) => ({ status: 200, body: pages[n - 1] }));
    const ids: string[] = [];
    for await (const j of client(srv.url).listAllJobs({ limit: 2 })) ids.push(j.job_id);
    expect(ids).toEqual(['job_3', 'job_2', 'job_1']);
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/v1/jobs?limit=2', '/api/v1/jobs?limit=2&starting_after=job_2']);
  });
});

describe('a server that cannot be reached', () => {
  it('names the URL and the reason, not just "fetch failed"', async () => {
    // A port nothing listens on: bound, then closed.
    srv = await server([{ status: 200 }]);
    const url = srv.url;
    await srv.close();
    srv = undefined;
    const err = await client(url, { maxRetries: 0 })
      .getAccount()
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err?.message).toBe(
      `GET ${url}/api/v1/account: could not reach ${url} (ECONNREFUSED). Is the server running, and is the base URL right?`,
    );
  });
});
