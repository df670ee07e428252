import net from 'node:net';
import { launchBrowser, newWatchedContext } from '../support/browser';
import { DashboardSession } from '../support/dashboard-session';
import { api, startFleet, userWithKey, type Fleet, type Replica } from '../support/fleet';

/**
 * The holes an attack run found in the started gateway, closed: JSON-RPC batches that slipped
 * past the per-key rate limit, request bodies sent slowly enough to hold a socket for ever, bodies
 * of any declared type parsed as JSON, and sign-in / sign-up without a per-address cap.
 */

const PASSWORD = 'correct horse battery';
const REQUEST_TIMEOUT_MS = 3000;
let counter = 0;
const newEmail = (tag: string) => `${tag}${Date.now()}${counter++}@example.test`;

/** One parsed JSON-RPC answer of an MCP POST (a JSON body, or the data lines of an event stream). */
interface RpcAnswer {
  id: number | string | null;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text: string }[] };
  error?: { code: number; message: string };
}

async function mcpPost(
  fleet: Fleet,
  key: string,
  body: unknown,
): Promise<{ status: number; headers: Headers; answers: RpcAnswer[] }> {
  const res = await fetch(`${fleet.baseUrl}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const answers: RpcAnswer[] = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as RpcAnswer)
    : ([JSON.parse(text)] as RpcAnswer[]).flat();
  return { status: res.status, headers: res.headers, answers };
}

const generateCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'generate_media', arguments: { type: 'image', prompt: `batch call ${id}` } },
});

async function credits(fleet: Fleet, key: string): Promise<number> {
  return (await api(fleet, 'GET', '/api/v1/account', { key })).body.credits_remaining;
}

/** Writes `head` at once, then one byte of `body` every `everyMs`; resolves what came back once the server closed the socket. */
function trickle(
  port: number,
  head: string,
  body: string,
  everyMs: number,
): Promise<{ answer: string; bytesSent: number; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    socket.write(head);
    const timer = setInterval(() => {
      if (sent < body.length && socket.writable) socket.write(body[sent++]);
    }, everyMs);
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, bytesSent: sent, closedAfterMs: Date.now() - started });
    });
  });
}

describe('abuse limits of the started gateway', () => {
  let fleet: Fleet;
  let trusting: Replica;

  beforeAll(async () => {
    fleet = await startFleet({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HEADERS_TIMEOUT_MS: '1500' });
    // A replica behind a (pretend) ingress on this machine: it believes X-Forwarded-For from loopback.
    trusting = await fleet.startReplica('gateway', { TRUST_PROXY: 'loopback' });
  }, 240_000);

  afterAll(async () => {
    await fleet?.shutdown();
  });

  describe('JSON-RPC batches on /api/mcp', () => {
    it('refuses a batch of more than 20 messages whole, running and charging nothing', async () => {
      const u = await userWithKey(fleet, 'all', 10_000);
      const res = await mcpPost(
        fleet,
        u.key,
        Array.from({ length: 80 }, (_, i) => generateCall(i + 1)),
      );
      expect(res.status).toBe(400);
      expect(res.answers).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: Batch must not exceed 20 messages' },
        },
      ]);
      expect(await credits(fleet, u.key)).toBe(10_000);
    });

    it('counts every call of a batch against the key, refusing those past the limit with -32000 and charging only those that ran', async () => {
      const u = await userWithKey(fleet, 'all', 10_000);
      // 49 requests of the minute's 60 spent: the batch's POST is the 50th, so its first call and 10 more fit.
      for (let i = 0; i < 48; i++) expect((await api(fleet, 'GET', '/api/v1/models', { key: u.key })).status).toBe(200);
      const before = await credits(fleet, u.key); // the 49th
      const res = await mcpPost(
        fleet,
        u.key,
        Array.from({ length: 20 }, (_, i) => generateCall(i + 1)),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      const byId = new Map(res.answers.map((a) => [a.id, a]));
      expect(byId.size).toBe(20);
      for (let id = 1; id <= 11; id++)
        expect([id, byId.get(id)?.result?.structuredContent?.status]).toEqual([id, 'processing']);
      for (let id = 12; id <= 20; id++) {
        const refused = byId.get(id)!;
        expect(refused.result).toBeUndefined();
        expect(refused.error!.code).toBe(-32000);
        expect(refused.error!.message).toMatch(
          /^Rate limit exceeded: 60 requests per minute per API key\. Retry after \d+ s\.$/,
        );
      }
      // The key's next REST request is over the limit too.
      const next = await api(fleet, 'GET', '/api/v1/account', { key: u.key });
      expect(next.status).toBe(429);
      expect(before).toBe(10_000);
      // Only the calls that ran were charged (11 images of 50 credits), checked with another key of the user.
      const reader = await fleet.admin('key:create', '--email', u.email, '--scopes', 'models:read');
      expect(await credits(fleet, String(reader.key))).toBe(10_000 - 11 * 50);
    });
  });

  describe('slow requests', () => {
    it('answers 408 with a JSON body and closes the socket when an unauthenticated sign-up body trickles in', async () => {
      const head = `POST /dashboard/api/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${fleet.baseUrl}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
      const { answer, bytesSent, closedAfterMs } = await trickle(
        fleet.ports.gateway,
        head,
        `{"email":"${'a'.repeat(200)}`,
        500,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer.split('\r\n\r\n')[1]).toBe('{"error":"Request timeout"}');
      expect(bytesSent).toBeLessThan(200);
      expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 5000);
    });

    it('does the same for an authenticated generate, which charges nothing', async () => {
      const u = await userWithKey(fleet, 'all', 1000);
      const head = `POST /api/v1/image/imagegen/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${u.key}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
      const { answer } = await trickle(fleet.ports.gateway, head, `{"prompt":"${'p'.repeat(200)}`, 500);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(await credits(fleet, u.key)).toBe(1000);
    });

    it('closes a connection whose headers trickle in', async () => {
      const { answer, bytesSent } = await trickle(
        fleet.ports.gateway,
        'GET /api/v1/models HTTP/1.1\r\n',
        `X-Slow: ${'y'.repeat(200)}`,
        300,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(bytesSent).toBeLessThan(200);
    });
  });

  describe('request bodies', () => {
    it('refuses a JSON text declared as text/plain with 415 on /api/v1 and /dashboard/api, charging and creating nothing', async () => {
      const u = await userWithKey(fleet, 'all', 1000);
      const generate = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: u.key,
        body: '{"prompt":"a cat"}',
        headers: { 'content-type': 'text/plain' },
      });
      expect([generate.status, generate.body]).toEqual([415, { error: 'Content-Type must be application/json' }]);
      const signup = await fetch(`${fleet.baseUrl}/dashboard/api/signup`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin: fleet.baseUrl },
        body: JSON.stringify({ email: newEmail('plain'), password: PASSWORD }),
      });
      expect([signup.status, await signup.json()]).toEqual([415, { error: 'Content-Type must be application/json' }]);
      expect(await credits(fleet, u.key)).toBe(1000);
    });

    it('says the body must be a JSON object when it is valid JSON of another kind', async () => {
      const u = await userWithKey(fleet, 'all', 1000);
      const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: u.key,
        body: '[{"prompt":"a cat"}]',
      });
      expect([res.status, res.body]).toEqual([400, { error: 'Request body must be a JSON object' }]);
      const broken = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', { key: u.key, body: '{"prompt":' });
      expect([broken.status, broken.body]).toEqual([400, { error: 'Invalid JSON body' }]);
    });
  });

  describe('wrong methods and credentials', () => {
    it('answers a method a known path does not take with 405 and Allow', async () => {
      const u = await userWithKey(fleet, 'all');
      const job = await api(fleet, 'POST', '/api/v1/jobs/job_0123456789abcdef', { key: u.key, body: {} });
      expect([job.status, job.headers.get('allow'), job.body]).toEqual([
        405,
        'DELETE, GET, HEAD',
        { error: 'Method POST not allowed here; allowed: DELETE, GET, HEAD' },
      ]);
      const generate = await api(fleet, 'GET', '/api/v1/video/vidgen-2/generate', { key: u.key });
      expect([generate.status, generate.headers.get('allow')]).toEqual([405, 'POST']);
      const signup = await fetch(`${fleet.baseUrl}/dashboard/api/signup`);
      expect([signup.status, signup.headers.get('allow')]).toEqual([405, 'POST']);
      const unknown = await api(fleet, 'POST', '/api/v1/nothing-here', { key: u.key, body: {} });
      expect(unknown.status).toBe(404);
    });

    it('tells a caller who sends an OAuth access token to REST where it belongs', async () => {
      const res = await api(fleet, 'GET', '/api/v1/account', { key: `mfo_at_${'x'.repeat(43)}` });
      expect([res.status, res.body]).toEqual([
        401,
        {
          error:
            'OAuth access tokens are for the MCP endpoint (/api/mcp); the REST API takes API keys (mf_live_...) from the dashboard',
        },
      ]);
    });
  });

  describe('sign-in and sign-up from one address', () => {
    it('stops password spraying: after 30 failed sign-ins from one IP, any email gets 429 with Retry-After', async () => {
      const s = new DashboardSession(fleet.baseUrl);
      const victim = newEmail('victim');
      expect((await s.signUp(victim, PASSWORD)).status).toBe(201);
      for (let i = 0; i < 30; i++)
        expect(
          (await new DashboardSession(fleet.baseUrl).signIn(newEmail(`spray${i}`), 'wrong password!!')).status,
        ).toBe(401);
      const blocked = await new DashboardSession(fleet.baseUrl).signIn(victim, PASSWORD);
      expect(blocked.status).toBe(429);
      const wait = Number(blocked.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(15 * 60);
      expect(blocked.body).toEqual({ error: `Too many sign-in attempts. Try again in ${wait} s.`, retry_after: wait });
    });

    it('allows 10 sign-ups per IP an hour, counting parallel ones exactly, then 429 with Retry-After', async () => {
      // Through the replica that trusts the loopback proxy: each test address below is its own client.
      const from = (ip: string) => (email: string) =>
        new DashboardSession(trusting.baseUrl).post('/signup', {
          body: { email, password: PASSWORD },
          headers: { 'x-forwarded-for': ip },
          origin: fleet.baseUrl,
        });
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => from('203.0.113.7')(newEmail(`mass${i}`))),
      );
      expect(results.map((r) => r.status).sort()).toEqual([...Array(10).fill(201), 429, 429]);
      const refused = results.find((r) => r.status === 429)!;
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(3600);
      expect(refused.body).toEqual({
        error: `Too many sign-ups from this address. Try again in ${wait} s.`,
        retry_after: wait,
      });
      // Another client address behind the same proxy is counted on its own.
      expect((await from('203.0.113.8')(newEmail('other'))).status).toBe(201);
    });

    it('ignores X-Forwarded-For where no proxy is trusted (the default)', async () => {
      const results: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await new DashboardSession(fleet.baseUrl).post('/signup', {
          body: { email: newEmail(`direct${i}`), password: PASSWORD },
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        });
        results.push(res.status);
      }
      // One address (the socket's), however the header varies; the spraying test's sign-up used one of its 10.
      expect(results).toEqual([...Array(9).fill(201), 429, 429]);
    });

    it('shows the wait in the dashboard: the sign-in button counts down while the address is blocked', async () => {
      // This address is over its failed sign-in count since the spraying test.
      const browser = await launchBrowser();
      try {
        const { page } = await newWatchedContext(browser);
        await page.goto(`${fleet.baseUrl}/dashboard/#/signin`);
        await page.getByLabel('Email').fill(newEmail('blocked'));
        await page.getByLabel('Password').fill(PASSWORD);
        const button = page.getByRole('button', { name: 'Sign in' });
        await button.click();
        await page.getByText(/Too many sign-in attempts\. Try again in \d+ s\./).waitFor();
        const countdown = page.getByRole('button', { name: /^Try again in \d+ s$/ });
        await countdown.waitFor();
        expect(await countdown.isDisabled()).toBe(true);
      } finally {
        await browser.close();
      }
    });
  });
});
