import { createHash, randomBytes } from 'node:crypto';
import {
  dashboardEndpoints,
  HOSTILE_IDS,
  HOSTILE_TEXT,
  hostileTextMessage,
  MALFORMED_JSON,
  nestedArrays,
  nestedObjects,
  textKind,
  wrongTypeValues,
  type DashboardEndpoint,
  type PropertySchema,
} from '../support/bad-input-catalog';
import { injectedHeaders, refusal, refused, send, type RawResponse } from '../support/bad-input-http';
import {
  errorLogLinesSince,
  expectEachTestLeavesNothingBehind,
  logOffsets,
  startTarget,
  stopTarget,
  type SideEffects,
  type Target,
} from '../support/bad-input-state';
import { DashboardSession } from '../support/dashboard-session';
import { api, type Fleet, type TestUser } from '../support/fleet';

const CREDITS = 1000;
const PASSWORD = 'correct horse battery';
const INVALID_JSON = 'Invalid JSON body';
const TOO_DEEP = 'JSON body nested too deeply (max 64 levels)';
const LONG = 'a'.repeat(10_000);
const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
/** Three hostile texts of HOSTILE_TEXT's kinds, for the tables that multiply by every field. */
const SOME_HOSTILE_TEXT = HOSTILE_TEXT.filter((t) =>
  ['a NUL', 'an escape sequence', 'an unpaired high surrogate'].includes(t.label),
);

/** A JSON-RPC error answer: the MCP endpoint's protocol-level refusal. */
const JSON_RPC_ERROR = { jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) }, id: null };

/** The JSON type of each body field of docs/dashboard-api.md's table (the table names fields, not types). */
const DASHBOARD_FIELD_TYPES: Record<string, PropertySchema> = {
  email: { type: 'string' },
  password: { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  scopes: { type: 'array', items: { type: 'string' } },
  amount: { type: 'integer' },
  idempotency_key: { type: 'string' },
  // The playground: null runs with the session, a key's id with that key.
  api_key_id: { type: ['integer', 'null'] },
  input: { type: 'object' },
  // A key's limits: null (or left out) means no limit of that kind.
  spend_limit: { type: ['integer', 'null'] },
  max_concurrent_jobs: { type: ['integer', 'null'] },
  // Webhook recover: an ISO 8601 timestamp.
  since: { type: 'string' },
  // The studio: the public editor bodies (CreateProjectBody, InstructBody, AddClipBody, MoveClipBody,
  // ImportAssetBody, ExportBody).
  description: { type: ['string', 'null'] },
  aspect_ratio: { type: 'string' },
  instruction: { type: 'string' },
  image_urls: { type: 'array', items: { type: 'string' } },
  video_id: { type: 'string' },
  track: { type: 'string' },
  asset_id: { type: 'string' },
  idx: { type: 'integer' },
  duration_sec: { type: 'number' },
  start_sec: { type: 'number' },
  volume: { type: 'number' },
  job_id: { type: 'string' },
  index: { type: 'integer' },
  fit: { type: 'string' },
};

/** The 404 message of a dashboard path with an :id. */
function dashboardNotFound(path: string): string {
  if (path.startsWith('/keys/')) return 'API key not found';
  if (path.startsWith('/jobs/')) return 'Job not found';
  if (path.startsWith('/projects/')) return 'Project not found';
  if (path.startsWith('/admin/users/')) return 'User not found';
  return `no 404 message known for ${path}`;
}

/**
 * Hostile input against the other surfaces of the gateway: the dashboard's JSON API (every
 * endpoint of docs/dashboard-api.md, with a session), the MCP endpoint (the JSON-RPC envelope, and
 * every argument of every tool it lists), and the OAuth endpoints. Each refusal is a 4xx whose body
 * has a string `error` (the OAuth error codes and JSON-RPC errors where those protocols rule), and
 * leaves nothing behind.
 */
describe('bad input on the dashboard API, the MCP endpoint and OAuth', () => {
  let fleet: Fleet;
  let user: TestUser;
  let state: SideEffects;
  let offsets: Record<string, number>;
  let admin: DashboardSession;
  let adminId: number;
  let keyId: number;
  let projectId: string;
  let videoId: string;
  let target: Target | undefined;
  let clientId: string;
  let tools: Array<{ name: string; inputSchema: { properties?: Record<string, PropertySchema>; required?: string[] } }>;

  beforeAll(async () => {
    target = await startTarget(CREDITS);
    ({ fleet, user, state, projectId, videoId } = target);

    const adminEmail = `admin-${Date.now()}@example.test`;
    adminId = Number((await fleet.admin('user:create', '--email', adminEmail, '--password', PASSWORD)).user_id);
    await fleet.admin('user:role', '--email', adminEmail, '--role', 'admin');
    admin = new DashboardSession(fleet.baseUrl);
    expect((await admin.signIn(adminEmail, PASSWORD)).status).toBe(200);
    keyId = (await admin.post('/keys', { body: { name: 'target', scopes: ['models:read'] } })).body.key.id;

    const registered = await send(fleet.baseUrl, 'POST', '/oauth/register', {
      body: JSON.stringify({ client_name: 'target', redirect_uris: [REDIRECT_URI] }),
    });
    clientId = registered.body.client_id;

    tools = (await mcp(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).body.result.tools;
    offsets = logOffsets(fleet);
  }, 240_000);

  afterAll(() => stopTarget(target));

  function mcp(body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
    // Checked against the OpenAPI document, as /api/v1 answers are.
    return send(fleet.baseUrl, 'POST', '/api/mcp', {
      key: user.key,
      body,
      headers: { accept: 'application/json, text/event-stream', ...headers },
      validate: true,
    });
  }

  /** A dashboard request as the page sends it (session cookie, CSRF token, same Origin), with any body. */
  function dashboard(method: string, path: string, body?: string | Buffer): Promise<RawResponse> {
    return send(fleet.baseUrl, method, `/dashboard/api${path}`, {
      body,
      headers: { cookie: admin.cookieHeader, 'x-csrf-token': admin.csrfToken ?? '', origin: fleet.baseUrl },
      validate: false,
    });
  }

  const endpoints = dashboardEndpoints();
  const withFields = endpoints.filter((e) => e.fields.length > 0);
  const withId = endpoints.filter((e) => e.path.includes(':id'));
  // The studio's bodies are the public editor's: there an optional field given null is left out.
  const fieldType = (e: DashboardEndpoint, field: string): PropertySchema => {
    const t = DASHBOARD_FIELD_TYPES[field] ?? {};
    if (!e.path.startsWith('/projects') || !e.optional.includes(field) || t.type === undefined) return t;
    return { ...t, type: [...new Set([...(Array.isArray(t.type) ? t.type : [t.type]), 'null'])] };
  };
  // Another record's id in the path is well-formed and unknown: the body is checked before it is looked up.
  const pathWithId = (e: DashboardEndpoint, id: string) =>
    e.path.replace(':id', id).replace(':clipId', 'clp_doesnotexist1').replace(':exportId', 'exp_doesnotexist1');
  const realId = (e: DashboardEndpoint) =>
    e.path.startsWith('/admin/users/')
      ? String(adminId)
      : e.path.startsWith('/keys/')
        ? String(keyId)
        : e.path.startsWith('/projects/')
          ? projectId
          : 'job_doesnotexist1';
  /** A valid body of each dashboard write, so a refusal comes from the one bad value. */
  const baseBody = (e: DashboardEndpoint): Record<string, unknown> =>
    ({
      '/signup': { email: `new-${randomBytes(4).toString('hex')}@example.test`, password: PASSWORD },
      '/signin': { email: 'nobody@example.test', password: PASSWORD },
      '/keys': { name: 'k', scopes: ['models:read'] },
      '/keys/:id/webhook': { url: 'https://example.com/hook' },
      '/keys/:id/limits': { spend_limit: 1000, max_concurrent_jobs: 5 },
      '/keys/:id/webhook/recover': { since: new Date().toISOString() },
      '/admin/users/:id/credits': { amount: 1 },
      '/generate/video': { api_key_id: null, input: { prompt: 'p' } },
      '/generate/image': { api_key_id: null, input: { prompt: 'p' } },
    })[e.path] ?? {};

  describe('refusals that leave nothing behind', () => {
    expectEachTestLeavesNothingBehind(() => state);

    describe('dashboard API', () => {
      it('reads the endpoints from docs/dashboard-api.md', () => {
        expect(endpoints.length).toBeGreaterThanOrEqual(20);
        expect(withFields.map((e) => e.path)).toEqual(
          expect.arrayContaining(['/signup', '/signin', '/keys', '/keys/:id/webhook', '/admin/users/:id/credits']),
        );
      });

      it.each(
        endpoints.flatMap((e) =>
          MALFORMED_JSON.map(([label, body]) => [`${e.method} ${e.path}`, label, e, body] as const),
        ),
      )('%s: refuses %s as "Invalid JSON body"', async (_n, _l, e, body) => {
        expect(refusal(await dashboard(e.method, pathWithId(e, realId(e)), body))).toEqual(refused(400, INVALID_JSON));
      });

      it.each(
        withFields.flatMap((e) =>
          e.fields.flatMap((field) =>
            SOME_HOSTILE_TEXT.map(
              ({ label, value, problem }) => [`${e.method} ${e.path}`, field, label, e, value, problem] as const,
            ),
          ),
        ),
      )('%s: refuses %s holding %s with 400 naming the field', async (_n, field, _l, e, value, problem) => {
        const body = JSON.stringify({ ...baseBody(e), [field]: field === 'scopes' ? [value] : value });
        expect(refusal(await dashboard(e.method, pathWithId(e, realId(e)), body))).toEqual(
          refused(400, hostileTextMessage(field === 'scopes' ? 'scopes[0]' : field, problem)),
        );
      });

      it('knows the JSON type of every documented body field', () => {
        expect(withFields.flatMap((e) => e.fields).filter((f) => !DASHBOARD_FIELD_TYPES[f])).toEqual([]);
      });

      it.each(
        withFields.flatMap((e) =>
          e.fields.flatMap((field) =>
            wrongTypeValues(fieldType(e, field)).map(
              ([label, value]) => [`${e.method} ${e.path}`, field, label, e, value] as const,
            ),
          ),
        ),
      )('%s: refuses %s given %s with 400', async (_n, field, _l, e, value) => {
        const res = await dashboard(
          e.method,
          pathWithId(e, realId(e)),
          JSON.stringify({ ...baseBody(e), [field]: value }),
        );
        // Sign-in with a wrong type is refused as a bad request, before the credentials are checked.
        expect(refusal(res)).toEqual(refused(400));
      });

      it.each(withFields.map((e) => [`${e.method} ${e.path}`, e] as const))(
        '%s: refuses a body over 64 KB with 413',
        async (_n, e) => {
          const body = JSON.stringify({ ...baseBody(e), padding: 'x'.repeat(70_000) });
          expect(refusal(await dashboard(e.method, pathWithId(e, realId(e)), body))).toEqual(
            refused(413, 'Request body too large (max 65536 bytes)'),
          );
        },
      );

      it.each(withFields.map((e) => [`${e.method} ${e.path}`, e] as const))(
        '%s: refuses 10,000 nested arrays in a field as too deep',
        async (_n, e) => {
          const body = `{"${e.fields[0]}": ${nestedArrays(10_000)}}`;
          expect(refusal(await dashboard(e.method, pathWithId(e, realId(e)), body))).toEqual(refused(400, TOO_DEEP));
        },
      );

      it.each(
        withId.flatMap((e) =>
          HOSTILE_IDS.map(([label, value, kind]) => [`${e.method} ${e.path}`, label, e, value, kind] as const),
        ),
      )('%s: answers an :id that is %s with a 4xx naming the record', async (_n, _l, e, value, kind) => {
        const res = await dashboard(
          e.method,
          pathWithId(e, value),
          e.fields.length ? JSON.stringify(baseBody(e)) : undefined,
        );
        expect(refusal(res)).toEqual(
          kind === 'malformed' ? refused(400, 'Malformed URL') : refused(404, dashboardNotFound(e.path)),
        );
        expect(injectedHeaders(res)).toEqual([]);
      });

      it.each([
        ['/ledger?limit=%00', 'limit must not contain control characters'],
        ['/ledger?limit=1%20OR%201%3D1', 'limit must be an integer from 1 to 500'],
        ['/ledger?before_id=1%3B%20DROP%20TABLE%20billing.ledger', 'before_id must be a positive integer'],
        ['/jobs?before=%27%20OR%201%3D1%20--', 'before must be a job id'],
        ['/jobs?limit=%1B', 'limit must not contain control characters'],
        ['/admin/users?email=%00', 'email must not contain control characters'],
        ['/keys/1/webhook/deliveries?limit=-1%20UNION%20SELECT%201', 'limit must be an integer from 1 to 500'],
      ])('refuses the query %s with 400 naming the parameter', async (path, message) => {
        expect(refusal(await dashboard('GET', path.replace('/keys/1/', `/keys/${keyId}/`)))).toEqual(
          refused(400, message),
        );
      });

      it('answers an SQL-looking sign-in as wrong credentials, storing no session', async () => {
        const res = await dashboard(
          'POST',
          '/signin',
          JSON.stringify({ email: "' OR 1=1 --", password: "' OR '1'='1" }),
        );
        expect(refusal(res)).toEqual(refused(401, 'Invalid email or password'));
        expect(res.headers.get('set-cookie')).toBeNull();
      });

      it('searches users for SQL text as text: no user matches, every table stays', async () => {
        const res = await dashboard('GET', `/admin/users?email=${encodeURIComponent("' OR 1=1 --")}`);
        expect([res.status, res.body]).toEqual([200, { users: [] }]);
      });

      it('answers a 10,000 character session cookie as not signed in', async () => {
        const res = await send(fleet.baseUrl, 'GET', '/dashboard/api/me', {
          headers: { cookie: `mf_session=${LONG}` },
          validate: false,
        });
        expect(refusal(res)).toEqual(refused(401, 'Not signed in'));
      });
    });

    describe('MCP endpoint', () => {
      it('lists the tools it attacks (all 17)', () => {
        expect(tools).toHaveLength(17);
      });

      it.each(MALFORMED_JSON)('refuses %s as "Invalid JSON body"', async (_l, body) => {
        expect(refusal(await mcp(body))).toEqual(refused(400, INVALID_JSON));
      });

      it.each([
        ['a bare string', '"tools/list"'],
        ['null', 'null'],
        ['a number', '42'],
        ['an empty batch', '[]'],
        ['a batch of numbers', '[1, 2]'],
        ['an empty object', '{}'],
        ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":42}'],
        ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}'],
        ['string params', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}'],
      ])('refuses %s as a message with 400 and a JSON-RPC error', async (_l, body) => {
        const res = await mcp(body);
        expect([res.status, res.body]).toEqual([400, JSON_RPC_ERROR]);
      });

      it.each([
        ['a numeric tool name', { name: 42 }],
        ['no tool name', {}],
        ['string arguments', { name: 'list_models', arguments: 'x' }],
        ['array arguments', { name: 'video_editor_create_project', arguments: [{ name: 'x' }] }],
      ])('answers tools/call with %s with a JSON-RPC error, never a result', async (_l, params) => {
        const res = await mcp(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }));
        expect(res.status).toBeLessThan(500);
        expect(res.body).toMatchObject({
          jsonrpc: '2.0',
          id: 7,
          error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) },
        });
        expect(res.body.result).toBeUndefined();
      });

      it('refuses a body over 1 MB with 413', async () => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'generate_media', arguments: { type: 'image', prompt: 'x'.repeat(1024 * 1024) } },
        });
        expect(refusal(await mcp(body))).toEqual(refused(413, 'Request body too large (max 1048576 bytes)'));
      });

      it.each([
        [
          '10,000 nested arrays in the arguments',
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_models","arguments":{"x":${nestedArrays(10_000)}}}}`,
        ],
        ['10,000 nested objects as the id', `{"jsonrpc":"2.0","id":${nestedObjects(10_000)},"method":"tools/list"}`],
        ['300,000 nested arrays as the body', nestedArrays(300_000)],
      ])('refuses %s as too deep', async (_l, body) => {
        expect(refusal(await mcp(body))).toEqual(refused(400, TOO_DEEP));
      });

      it('answers a 10,000 character bearer token with 401', async () => {
        const res = await send(fleet.baseUrl, 'POST', '/api/mcp', {
          body: '{}',
          headers: { authorization: `Bearer ${LONG}`, accept: 'application/json, text/event-stream' },
          validate: true,
        });
        expect(refusal(res)).toEqual(refused(401, 'Invalid or revoked API key'));
      });

      /** Valid values for a tool's required arguments, so a refusal comes from the one bad argument. */
      function requiredArgs(tool: (typeof tools)[number], except: string): Record<string, unknown> {
        const known: Record<string, unknown> = {
          project_id: projectId,
          video_id: videoId,
          job_id: 'job_doesnotexist1',
          asset_id: 'ast_doesnotexist1',
          clip_id: 'clp_doesnotexist1',
          type: 'image',
          prompt: 'p',
          name: 'n',
          url: 'https://example.com/a.png',
          idx: 1,
          context_md: 'x',
          aspect_ratio: '16:9',
          track: 'video',
        };
        const out: Record<string, unknown> = {};
        for (const name of tool.inputSchema.required ?? []) {
          if (name === except) continue;
          const schema = tool.inputSchema.properties?.[name];
          out[name] = name in known ? known[name] : schema?.enum?.[0];
        }
        return out;
      }

      // The tables below are built from tools/list at run time (one test each, the failures listed).
      it('refuses hostile text in every text argument of every tool with 400 naming it', async () => {
        const failures: unknown[] = [];
        let cases = 0;
        for (const tool of tools) {
          for (const [arg, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
            const kind = textKind(schema);
            if (!kind) continue;
            for (const { label, value, problem } of SOME_HOSTILE_TEXT) {
              cases++;
              const args = { ...requiredArgs(tool, arg), [arg]: kind === 'string' ? value : [value] };
              const got = refusal(
                await mcp(
                  JSON.stringify({
                    jsonrpc: '2.0',
                    id: 1,
                    method: 'tools/call',
                    params: { name: tool.name, arguments: args },
                  }),
                ),
              );
              const message = hostileTextMessage(`params.arguments.${arg}${kind === 'string' ? '' : '[0]'}`, problem);
              if (got.status !== 400 || !got.json || got.error !== message)
                failures.push({ tool: tool.name, arg, label, got });
            }
          }
        }
        expect(cases).toBeGreaterThan(50);
        expect(failures).toEqual([]);
      });

      it('answers a wrongly typed argument of every tool with a tool error, never a result or a server error', async () => {
        const failures: unknown[] = [];
        let cases = 0;
        for (const tool of tools) {
          for (const [arg, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
            // null for an optional argument means "not given", as in the REST API (docs/api-behaviour.md).
            const required = tool.inputSchema.required ?? [];
            for (const [label, value] of wrongTypeValues(schema).filter(
              ([l]) => l !== 'null' || required.includes(arg),
            )) {
              cases++;
              const args = { ...requiredArgs(tool, arg), [arg]: value };
              const res = await mcp(
                JSON.stringify({
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: { name: tool.name, arguments: args },
                }),
              );
              const result = res.body?.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
              const text = result?.content?.[0]?.text ?? '';
              // A use case's refusal is quoted as {"status": 4xx, ...}; the SDK's schema check as "MCP error -32602".
              const status = /^\{/.test(text) ? (JSON.parse(text) as { status?: number }).status : undefined;
              const ok =
                res.status === 200 &&
                result?.isError === true &&
                (status === undefined ? /-32602|Invalid arguments|Input validation error/i.test(text) : status < 500);
              if (!ok)
                failures.push({
                  tool: tool.name,
                  arg,
                  label,
                  status: res.status,
                  body: JSON.stringify(res.body).slice(0, 300),
                });
            }
          }
        }
        expect(cases).toBeGreaterThan(50);
        expect(failures).toEqual([]);
      });
    });

    describe('OAuth endpoints', () => {
      const register = (body: string | Buffer) =>
        send(fleet.baseUrl, 'POST', '/oauth/register', { body, validate: false });
      const form = (path: string, body: string | Buffer) =>
        send(fleet.baseUrl, 'POST', path, {
          body,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          validate: false,
        });
      const metadata = (extra: Record<string, unknown>) =>
        JSON.stringify({ client_name: 'c', redirect_uris: [REDIRECT_URI], ...extra });

      it.each(MALFORMED_JSON)('/oauth/register refuses %s as "Invalid JSON body"', async (_l, body) => {
        expect(refusal(await register(body))).toEqual(refused(400, INVALID_JSON));
      });

      it.each([
        ['a bare string', '"client"'],
        ['null', 'null'],
        ['an array', `[${metadata({})}]`],
        ['a number', '42'],
      ])('/oauth/register refuses %s as invalid client metadata', async (_l, body) => {
        expect(refusal(await register(body))).toEqual(refused(400, 'invalid_client_metadata'));
      });

      it.each(
        [
          'client_name',
          'client_uri',
          'logo_uri',
          'scope',
          'tos_uri',
          'policy_uri',
          'software_id',
          'software_version',
          'redirect_uris',
          'contacts',
        ].flatMap((field) =>
          SOME_HOSTILE_TEXT.map(({ label, value, problem }) => [field, label, value, problem] as const),
        ),
      )('/oauth/register refuses %s holding %s with 400 naming the field', async (field, _l, value, problem) => {
        const list = field === 'redirect_uris' || field === 'contacts';
        const res = await register(metadata({ [field]: list ? [value] : value }));
        expect(refusal(res)).toEqual(refused(400, hostileTextMessage(list ? `${field}[0]` : field, problem)));
      });

      it.each([
        ['client_name', 42],
        ['client_name', { value: 'x' }],
        ['redirect_uris', REDIRECT_URI],
        ['redirect_uris', [42]],
        ['grant_types', 'authorization_code'],
        ['scope', ['models:read']],
        ['token_endpoint_auth_method', true],
      ])('/oauth/register refuses %s given %j as invalid client metadata', async (field, value) => {
        expect(refusal(await register(metadata({ [field]: value })))).toEqual(refused(400, /^invalid_/));
      });

      it('/oauth/register refuses a body over 64 KB with 413, and 10,000 nested arrays as too deep', async () => {
        expect(refusal(await register(metadata({ client_name: 'x'.repeat(70_000) })))).toEqual(
          refused(413, 'Request body too large (max 65536 bytes)'),
        );
        expect(refusal(await register(`{"client_name": ${nestedArrays(10_000)}}`))).toEqual(refused(400, TOO_DEEP));
      });

      it.each([
        ['a NUL client_id', 'grant_type=authorization_code&code=x&code_verifier=y&client_id=%00', 'invalid_client'],
        [
          'an SQL client_id',
          `grant_type=authorization_code&code=x&code_verifier=y&client_id=${encodeURIComponent("' OR 1=1 --")}`,
          'invalid_client',
        ],
        [
          'a NUL code',
          () =>
            `grant_type=authorization_code&code=%00&code_verifier=%00&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
          'invalid_grant',
        ],
        [
          'an SQL refresh token',
          () =>
            `grant_type=refresh_token&refresh_token=${encodeURIComponent("x'; DROP TABLE gateway.oauth_tokens; --")}&client_id=${clientId}`,
          'invalid_grant',
        ],
        [
          'a NUL grant type',
          () => `grant_type=%00&client_id=${clientId}`,
          /^(unsupported_grant_type|invalid_request)$/,
        ],
        [
          'bytes that are not UTF-8',
          Buffer.from([0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x5f, 0x69, 0x64, 0x3d, 0xff, 0xfe]),
          /^invalid_/,
        ],
        ['a JSON body', '{"client_id":"\\u0000"}', /^invalid_/],
      ] as const)('/oauth/token refuses %s with 400', async (_l, body, error) => {
        const res = await form('/oauth/token', typeof body === 'function' ? body() : body);
        expect(refusal(res)).toEqual(refused(400, error));
      });

      it('/oauth/token refuses a form over 100 KB with 413', async () => {
        expect(refusal(await form('/oauth/token', `client_id=${'x'.repeat(200_000)}`))).toEqual(
          refused(413, 'Request body too large (max 102400 bytes)'),
        );
      });

      it('/oauth/revoke refuses a NUL token and client_id with 400', async () => {
        expect(refusal(await form('/oauth/revoke', 'token=%00&client_id=%00'))).toEqual(refused(400, 'invalid_client'));
      });

      it('/oauth/authorize refuses a NUL in its query with 400 naming the parameter', async () => {
        const res = await send(fleet.baseUrl, 'GET', '/oauth/authorize?response_type=code&client_id=%00', {
          validate: false,
        });
        expect(refusal(res)).toEqual(refused(400, 'client_id must not contain control characters'));
      });

      it('/oauth/authorize keeps a CRLF in state inside the encoded redirect, writing no header', async () => {
        const challenge = createHash('sha256').update('verifier-'.repeat(8)).digest('base64url');
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'x\r\nX-Injected: 1',
        });
        const res = await send(fleet.baseUrl, 'GET', `/oauth/authorize?${query.toString()}`, { validate: false });
        expect(res.status).toBe(302);
        expect(injectedHeaders(res)).toEqual([]);
        expect(res.headers.get('location')).toMatch(/^\/dashboard\/#\/signin\?return_to=/);
      });

      it('/oauth/authorize refuses a redirect_uri with a CRLF that was never registered', async () => {
        const query = `response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(`${REDIRECT_URI}\r\nX-Injected: 1`)}&code_challenge=abc&code_challenge_method=S256`;
        const res = await send(fleet.baseUrl, 'GET', `/oauth/authorize?${query}`, { validate: false });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
        expect(injectedHeaders(res)).toEqual([]);
      });
    });
  });

  it('charged nothing for any of it, and stored no client beyond the one registered on purpose', async () => {
    const account = await api(fleet, 'GET', '/api/v1/account', { key: user.key });
    expect(account.body).toMatchObject({ credits_remaining: CREDITS, credits_used_this_period: 0 });
    const clients = await state.query<{ client_id: string }>('SELECT client_id FROM gateway.oauth_clients');
    expect(clients).toEqual([{ client_id: clientId }]);
  });

  it('logged no error for any of it', () => {
    expect(errorLogLinesSince(fleet, offsets)).toEqual([]);
  });
});
