import {
  BASE_BODIES,
  documentedOperations,
  HOSTILE_IDS,
  pathOf,
  SQL_TEXT,
  type Operation,
} from '../support/bad-input-catalog';
import { injectedHeaders, rawRequest, refusal, refused, send } from '../support/bad-input-http';
import {
  errorLogLinesSince,
  expectEachTestLeavesNothingBehind,
  logOffsets,
  startTarget,
  stopTarget,
  type SideEffects,
  type Target,
} from '../support/bad-input-state';
import { api, type Fleet, type TestUser } from '../support/fleet';

const CREDITS = 1000;
const INVALID_JSON = 'Invalid JSON body';
const LONG = 'a'.repeat(10_000);

/** The 404 message of each kind of path parameter. */
function notFoundMessage(op: Operation, param: string): string {
  if (param === 'id') {
    if (op.template.startsWith('/api/v1/jobs/')) return 'Job not found';
    if (op.template.startsWith('/api/v1/webhook/deliveries/')) return 'Delivery not found';
    return 'Project not found';
  }
  return (
    {
      videoId: 'Video not found',
      assetId: 'Asset not found',
      clipId: 'Clip not found',
      exportId: 'Export not found',
    }[param] ?? `unknown parameter ${param}`
  );
}

/**
 * Hostile request lines and headers against every /api/v1 operation of the OpenAPI document and
 * /media: path traversal, NUL, SQL and CRLF in ids; control characters in query strings;
 * 10,000-character header values and headers over Node's 16 KB limit; header injection. Each is a
 * 4xx with the contract's error body that leaves nothing behind, and no answer carries a header
 * the request wrote. SQL text where a field accepts text is stored verbatim and harmless.
 */
describe('bad input in paths, query strings and headers', () => {
  let fleet: Fleet;
  let user: TestUser;
  let state: SideEffects;
  let offsets: Record<string, number>;
  let projectId: string;
  let videoId: string;
  let target: Target | undefined;

  const operations = documentedOperations();
  const authenticated = operations.filter((op) => op.authenticated);
  const withParams = operations.filter((op) => op.params.length > 0);

  beforeAll(async () => {
    target = await startTarget(CREDITS);
    ({ fleet, user, state, projectId, videoId } = target);
    offsets = logOffsets(fleet);
  }, 240_000);

  afterAll(() => stopTarget(target));

  const goodParams = (op: Operation): Record<string, string> => ({
    id: op.template.startsWith('/api/v1/jobs/') ? 'job_doesnotexist1' : projectId,
    videoId,
    assetId: 'ast_doesnotexist1',
    clipId: 'clp_doesnotexist1',
    exportId: 'exp_doesnotexist1',
  });
  const bodyOf = (op: Operation): string | undefined => (op.body ? JSON.stringify(BASE_BODIES[op.id]) : undefined);

  describe('refusals that leave nothing behind', () => {
    expectEachTestLeavesNothingBehind(() => state);

    describe('ids in paths', () => {
      it.each(
        withParams.flatMap((op) =>
          op.params.flatMap((param) =>
            HOSTILE_IDS.map(
              ([label, value, kind]) =>
                [`${op.method} ${op.template}`, `{${param}}`, label, op, param, value, kind] as const,
            ),
          ),
        ),
      )(
        '%s: answers %s as %s with a 4xx naming the record, writing no header',
        async (_name, _p, _label, op, param, value, kind) => {
          const res = await send(fleet.baseUrl, op.method, pathOf(op, { ...goodParams(op), [param]: value }), {
            key: user.key,
            body: bodyOf(op),
          });
          expect(refusal(res)).toEqual(
            kind === 'malformed' ? refused(400, 'Malformed URL') : refused(404, notFoundMessage(op, param)),
          );
          expect(injectedHeaders(res)).toEqual([]);
          expect(res.text).not.toMatch(/root:|\[fonts\]/);
        },
      );

      it.each([
        ['/api/v1/jobs/../../../../etc/passwd'],
        ['/api/v1/jobs/..%2F..%2F..%2F..%2Fetc%2Fpasswd/'],
        ['/api/v1/media-studio/projects/../../../etc/passwd'],
        ['/api/v1/media-studio/projects/./././'],
        ['/api/v1/../../../../etc/passwd'],
        ['/api/v1/jobs/%2e%2e/%2e%2e/%2e%2e/etc/passwd'],
      ])('answers the unnormalised path %s with 404, never a file', async (path) => {
        const res = await send(fleet.baseUrl, 'GET', path, { key: user.key, validate: false });
        expect(refusal(res)).toEqual(refused(404, /not found/i));
        expect(res.text).not.toMatch(/root:/);
      });

      it.each([
        ['/media/..%2F..%2F..%2Fetc%2Fpasswd', 404],
        ['/media/%2e%2e/%2e%2e/%2e%2e/etc/passwd', 404],
        ['/media/../../../etc/passwd', 404],
        ['/media/jobs/..%2F..%2F..%2F..%2Fetc%2Fpasswd', 404],
        ['/media/....//....//etc/passwd', 404],
        ['/media/%5C..%5C..%5Cetc%5Cpasswd', 404],
        ['/media/jobs/job_1/a%00.mp4', 404],
        ['/media/%00', 404],
        [`/media/${'a'.repeat(10_000)}`, 404],
        ["/media/jobs/'%20OR%201%3D1%20--/video.mp4", 404],
        ['/media/a%0D%0AX-Injected:%201', 404],
        ['/media/%C0%AF%C0%AFetc%C0%AFpasswd', 400],
      ] as const)('answers GET and HEAD %s with %d, never a file and no written header', async (path, status) => {
        const get = await send(fleet.baseUrl, 'GET', path, { validate: true });
        expect(refusal(get)).toEqual(refused(status, status === 400 ? 'Malformed URL' : 'Not found'));
        expect(get.text).not.toMatch(/root:/);
        expect(injectedHeaders(get)).toEqual([]);
        const head = await send(fleet.baseUrl, 'HEAD', path, { validate: false });
        expect(head.status).toBe(status);
        expect(injectedHeaders(head)).toEqual([]);
      });
    });

    describe('query strings', () => {
      it.each(authenticated.map((op) => [`${op.method} ${op.template}`, op] as const))(
        '%s: refuses an encoded NUL or escape in a query parameter with 400 naming it',
        async (_name, op) => {
          const path = pathOf(op, goodParams(op));
          const nul = await send(fleet.baseUrl, op.method, `${path}?video_id=%00`, { key: user.key, body: bodyOf(op) });
          expect(refusal(nul)).toEqual(refused(400, 'video_id must not contain control characters'));
          const esc = await send(fleet.baseUrl, op.method, `${path}?q=ok&q=%1B%5B2J`, {
            key: user.key,
            body: bodyOf(op),
          });
          expect(refusal(esc)).toEqual(refused(400, 'q[1] must not contain control characters'));
        },
      );

      it.each([
        ["' OR 1=1 --", 'Video not found'],
        ['vid_1; DROP TABLE editor.videos; --', 'Video not found'],
        ['../../etc/passwd', 'Video not found'],
        ['vid_1\r\nX-Injected: 1', 'Video not found'],
      ])('answers video_id=%j on a project with 404 "%s", writing no header', async (value, message) => {
        const res = await send(
          fleet.baseUrl,
          'GET',
          `/api/v1/media-studio/projects/${projectId}?video_id=${encodeURIComponent(value)}`,
          { key: user.key },
        );
        expect(refusal(res)).toEqual(refused(404, message));
        expect(injectedHeaders(res)).toEqual([]);
      });
    });

    describe('headers', () => {
      it.each(authenticated.map((op) => [`${op.method} ${op.template}`, op] as const))(
        '%s: answers a 10,000 character bearer token with 401',
        async (_name, op) => {
          const res = await send(fleet.baseUrl, op.method, pathOf(op, goodParams(op)), {
            headers: { authorization: `Bearer ${LONG}` },
            body: bodyOf(op),
          });
          expect(refusal(res)).toEqual(refused(401, 'Invalid or revoked API key'));
        },
      );

      it.each(
        authenticated.flatMap((op) =>
          ['Idempotency-Key', 'X-Custom-Header', 'User-Agent', 'Cookie', 'Accept-Language'].map(
            (header) => [`${op.method} ${op.template}`, header, op] as const,
          ),
        ),
      )(
        '%s: judges a request with a 10,000 character %s as without it (malformed JSON stays "Invalid JSON body")',
        async (_name, header, op) => {
          const res = await send(fleet.baseUrl, op.method, pathOf(op, goodParams(op)), {
            key: user.key,
            body: '{"a":',
            headers: { [header]: LONG },
          });
          expect(refusal(res)).toEqual(refused(400, INVALID_JSON));
        },
      );

      it.each([['/api/v1/account'], ['/api/v1/models'], ['/api/v1/media-studio/projects']])(
        'answers GET %s with 10,000 character headers exactly as without them',
        async (path) => {
          const plain = await send(fleet.baseUrl, 'GET', path, { key: user.key });
          const long = await send(fleet.baseUrl, 'GET', path, {
            key: user.key,
            headers: { 'User-Agent': LONG, 'X-Custom-Header': LONG.slice(0, 5000) },
          });
          expect([long.status, long.body]).toEqual([plain.status, plain.body]);
          expect(plain.status).toBe(200);
        },
      );

      it.each([
        ['GET', '/api/v1/account'],
        ['POST', '/api/v1/video/vidgen-2/generate'],
        ['POST', '/api/mcp'],
        ['GET', '/dashboard/api/me'],
        ['POST', '/oauth/token'],
        ['GET', '/media/jobs/x.mp4'],
        ['GET', '/api/v1/openapi.json'],
      ])('answers %s %s with headers over 16 KB in total with 431 and a JSON error body', async (method, path) => {
        const res = await send(fleet.baseUrl, method, path, {
          key: user.key,
          headers: { 'User-Agent': LONG, 'X-Custom-Header': LONG },
          body: method === 'POST' ? '{}' : undefined,
          validate: false,
        });
        expect(refusal(res)).toEqual(refused(431, 'Request headers too large'));
      });

      it('replaces an X-Request-Id carrying an encoded header injection instead of echoing it', async () => {
        const sent = 'abc%0D%0AX-Injected:%201';
        const res = await send(fleet.baseUrl, 'GET', '/api/v1/jobs/job_doesnotexist1', {
          key: user.key,
          headers: { 'X-Request-Id': sent },
        });
        expect(refusal(res)).toEqual(refused(404, 'Job not found'));
        expect(res.headers.get('x-request-id')).not.toBe(sent);
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(injectedHeaders(res)).toEqual([]);
      });

      it('writes no header from an Idempotency-Key carrying an encoded CRLF', async () => {
        const res = await send(fleet.baseUrl, 'POST', '/api/v1/image/imagegen/generate', {
          key: user.key,
          body: '{"prompt":',
          headers: { 'Idempotency-Key': 'k%0D%0AX-Injected:%201' },
        });
        expect(refusal(res)).toEqual(refused(400, INVALID_JSON));
        expect(injectedHeaders(res)).toEqual([]);
      });

      it.each([
        ['a NUL in a header value', 'GET /api/v1/account HTTP/1.1\r\nHost: x\r\nX-Evil: a\u0000b\r\n\r\n'],
        [
          'a bare LF inside a header value',
          'GET /api/v1/account HTTP/1.1\r\nHost: x\r\nX-Evil: a\nX-Injected: 1\r\n\r\n',
        ],
        ['a CR inside the request target', 'GET /api/v1/jobs/a\rX-Injected:1 HTTP/1.1\r\nHost: x\r\n\r\n'],
        ['a header without a colon', 'GET /api/v1/account HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'],
        ['a space in the request target', 'GET /api/v1/jobs/a b HTTP/1.1\r\nHost: x\r\n\r\n'],
      ])('answers raw bytes with %s with 400 and a JSON error body', async (_label, bytes) => {
        const res = await rawRequest(fleet.baseUrl, bytes);
        expect(res.status).toBe(400);
        expect(res.head).toMatch(/\r\nContent-Type: application\/json/i);
        expect(res.head).not.toMatch(/X-Injected/i);
        expect(JSON.parse(res.body)).toEqual({ error: 'Bad request' });
      });
    });
  });

  describe('SQL text where text is accepted: stored verbatim, harmless', () => {
    it.each(SQL_TEXT)('keeps %j as a project name, description and context, and every table stays', async (text) => {
      const before = await state.snapshot();
      const created = await api(fleet, 'POST', '/api/v1/media-studio/projects', {
        key: user.key,
        body: { name: text, description: text },
      });
      expect(created.status).toBe(200);
      expect(created.body.project.name).toBe(text);
      const id = created.body.project.id as string;
      const context = await api(fleet, 'PUT', `/api/v1/media-studio/projects/${id}/context`, {
        key: user.key,
        body: { context_md: `${text}\n${text}` },
      });
      expect(context.body.project.context_md).toBe(`${text}\n${text}`);
      const projectState = await api(fleet, 'GET', `/api/v1/media-studio/projects/${id}`, { key: user.key });
      expect(projectState.body.project).toMatchObject({ name: text, context_md: `${text}\n${text}` });
      // Exactly one project and its default video were added; nothing else changed, nothing was dropped.
      expect((await state.changesSince(before)).sort()).toEqual(['editor.projects', 'editor.videos']);
      const stored = await state.query<{ name: string; description: string }>(
        'SELECT name, description FROM editor.projects WHERE id = $1',
        [id],
      );
      expect(stored).toEqual([{ name: text, description: text }]);
    });

    it('keeps a prompt-like SQL text out of any query: the submit is judged on its fields only', async () => {
      const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: user.key,
        body: { prompt: "' OR 1=1 --", num_images: '1; DROP TABLE jobs.jobs' },
      });
      expect([res.status, res.body]).toEqual([400, { error: 'num_images must be 1-4' }]);
    });
  });

  it('charged nothing for any of it: the balance and the period usage are as granted', async () => {
    const account = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    expect(account.body).toMatchObject({ credits_remaining: CREDITS, credits_used_this_period: 0 });
    const jobs = await state.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs');
    expect(jobs[0].n).toBe(0);
  });

  it('logged no error for any of it', () => {
    expect(errorLogLinesSince(fleet, offsets)).toEqual([]);
  });
});
