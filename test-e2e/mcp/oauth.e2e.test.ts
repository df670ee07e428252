import { createHash, randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { launchBrowser, newWatchedContext } from '../support/browser';
import { DashboardSession } from '../support/dashboard-session';
import { pooledFleet, type PooledFleet } from '../support/pool';

const PASSWORD = 'correct horse battery';
const REDIRECT_URL = 'http://127.0.0.1:53682/callback';
const ALL_SCOPES = [
  'models:read',
  'video:write',
  'image:write',
  'jobs:read',
  'video-editor:write',
  'video-editor:read',
];

let counter = 0;
const newEmail = (tag: string) => `${tag}-${Date.now()}-${counter++}@example.test`;

/**
 * An MCP client's OAuth state, in memory: what it registered, its tokens and PKCE verifier, and the
 * authorization URL it would have opened in a browser (the test plays the browser).
 */
class TestOAuthProvider implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = REDIRECT_URL;
  readonly expectedState = randomBytes(16).toString('hex');

  constructor(readonly clientName: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

function decodeHtml(value: string): string {
  return value.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '',
  );
}

/** What a browser would submit from the consent page: its hidden fields, and which scope boxes it offers. */
function readConsentForm(html: string): { hidden: [string, string][]; offered: string[] } {
  const hidden = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
    (m): [string, string] => [m[1], decodeHtml(m[2])],
  );
  const offered = [...html.matchAll(/<input type="checkbox" [^>]*name="scope_granted" value="([^"]+)"/g)].map((m) =>
    decodeHtml(m[1]),
  );
  return { hidden, offered };
}

/** A JSON answer, asserted field by field by the tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function jsonOf(res: Response): Promise<any> {
  return res.json();
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('OAuth 2.1 for MCP clients, end to end', () => {
  let fleet: PooledFleet;
  let db: PgClient;
  let base: string;
  let alice: DashboardSession;
  let aliceEmail: string;
  /** A client for the cases that need one but not its own (the SDK allows 20 registrations an hour per IP). */
  let sharedClientId: string;

  beforeAll(async () => {
    fleet = await pooledFleet();
    base = fleet.baseUrl;
    db = new PgClient({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
    alice = new DashboardSession(base);
    aliceEmail = newEmail('alice');
    const res = await alice.signUp(aliceEmail, PASSWORD);
    expect(res.status).toBe(201);
    const shared = await register('Shared Client');
    expect(shared.status).toBe(201);
    sharedClientId = String(shared.body.client_id);
  }, 240_000);

  afterAll(async () => {
    await db?.end();
  });

  const mcpUrl = () => new URL(`${base}/api/mcp`);

  /** The browser part: open the authorization URL signed in, then post the consent form. Returns the redirect's Location. */
  async function consent(
    session: DashboardSession,
    authorizationUrl: URL | string,
    opts: { decision?: 'approve' | 'deny'; scopes?: string[]; csrf?: string | null; origin?: string } = {},
  ): Promise<{ status: number; location: URL | null; body: string }> {
    const page = await fetch(authorizationUrl, { headers: { cookie: session.cookieHeader }, redirect: 'manual' });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const { hidden, offered } = readConsentForm(html);
    const form = new URLSearchParams();
    for (const [k, v] of hidden) {
      if (k === 'csrf_token' && opts.csrf !== undefined) {
        if (opts.csrf !== null) form.append(k, opts.csrf);
      } else form.append(k, v);
    }
    for (const s of opts.scopes ?? offered) form.append('scope_granted', s);
    form.set('decision', opts.decision ?? 'approve');
    const res = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: {
        cookie: session.cookieHeader,
        origin: opts.origin ?? base,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      redirect: 'manual',
    });
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, base) : null, body: await res.text() };
  }

  /** A client registered by hand (the raw-HTTP cases). */
  async function register(
    name: string,
    redirectUris: string[] = [REDIRECT_URL],
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: 'none' }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  function authorizationUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URL,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: ALL_SCOPES.join(' '),
      state: 'st-1',
      ...extra,
    });
    return `${base}/oauth/authorize?${q.toString()}`;
  }

  // Bodies are OAuth JSON objects that each test asserts field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function token(params: Record<string, string>): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, body: await res.json() };
  }

  /** A code for a fresh hand-registered client, approved by alice with every offered scope. */
  async function approvedCode(name: string): Promise<{ clientId: string; code: string; verifier: string }> {
    const reg = await register(name);
    expect(reg.status).toBe(201);
    const clientId = String(reg.body.client_id);
    const { verifier, challenge } = pkcePair();
    const answer = await consent(alice, authorizationUrl(clientId, challenge));
    expect(answer.status).toBe(302);
    const code = answer.location!.searchParams.get('code');
    expect(code).toBeTruthy();
    return { clientId, code: code!, verifier };
  }

  /** An MCP client that sends a fixed bearer token (no OAuth provider: a refused token stays refused). */
  async function mcpWithToken(accessToken: string): Promise<Client> {
    const client = new Client({ name: 'oauth-e2e-fixed', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl(), {
        requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      }),
    );
    return client;
  }

  async function mcpStatus(accessToken: string): Promise<{ status: number; challenge: string | null }> {
    const res = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await res.body?.cancel();
    return { status: res.status, challenge: res.headers.get('www-authenticate') };
  }

  async function keysOf(
    session: DashboardSession,
  ): Promise<{ id: number; name: string; scopes: string[]; revoked_at: string | null; last_used_at: string | null }[]> {
    const res = await session.get('/keys');
    expect(res.status).toBe(200);
    return res.body.keys;
  }

  describe('discovery', () => {
    it('answers an unauthenticated MCP request 401 with a challenge naming the protected-resource metadata', async () => {
      const res = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`,
      );
    });

    it('names this gateway as the authorization server of /api/mcp, with the API scopes, and describes its endpoints', async () => {
      const prm = await (await fetch(`${base}/.well-known/oauth-protected-resource/api/mcp`)).json();
      expect(prm).toMatchObject({
        resource: `${base}/api/mcp`,
        authorization_servers: [`${base}/`],
        scopes_supported: ALL_SCOPES,
      });
      const root = await jsonOf(await fetch(`${base}/.well-known/oauth-protected-resource`));
      expect(root.authorization_servers).toEqual([`${base}/`]);
      const as = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
      expect(as).toMatchObject({
        issuer: `${base}/`,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    });
  });

  describe('the SDK client walks the whole flow', () => {
    const provider = new TestOAuthProvider('Claude Test Client');
    let first: OAuthTokens;

    it('registers, sends the user to sign in and consent, exchanges the code with PKCE and calls tools', async () => {
      const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
      await expect(
        client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })),
      ).rejects.toThrow(UnauthorizedError);

      // Registered as a public client; the authorization request uses PKCE S256 and names the resource.
      const info = provider.clientInformation() as {
        client_id: string;
        client_secret?: string;
        token_endpoint_auth_method?: string;
      };
      expect(info.client_id).toEqual(expect.any(String));
      expect(info.client_secret).toBeUndefined();
      expect(info.token_endpoint_auth_method).toBe('none');
      const authUrl = provider.authorizationUrl!;
      expect(`${authUrl.origin}${authUrl.pathname}`).toBe(`${base}/oauth/authorize`);
      expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authUrl.searchParams.get('resource')).toBe(`${base}/api/mcp`);

      // Signed out, the browser is sent to the dashboard's sign-in with a way back here.
      const signedOut = await fetch(authUrl, { redirect: 'manual' });
      expect(signedOut.status).toBe(302);
      const signIn = new URL(signedOut.headers.get('location')!, base);
      expect(`${signIn.pathname}${signIn.hash.split('?')[0]}`).toBe('/dashboard/#/signin');
      const returnTo = new URLSearchParams(signIn.hash.slice(signIn.hash.indexOf('?') + 1)).get('return_to')!;
      const back = new URL(returnTo, base);
      expect(`${back.origin}${back.pathname}`).toBe(`${base}/oauth/authorize`);
      expect(Object.fromEntries(back.searchParams)).toEqual(Object.fromEntries(authUrl.searchParams));

      // Signed in: the consent page names the client and offers every requested scope.
      const page = await fetch(authUrl, { headers: { cookie: alice.cookieHeader }, redirect: 'manual' });
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(html).toContain('Authorize Claude Test Client');
      expect(readConsentForm(html).offered).toEqual(ALL_SCOPES.filter((s) => s !== 'models:read'));

      // Approve with only two of the boxes left checked.
      const answer = await consent(alice, authUrl, { scopes: ['jobs:read', 'video-editor:read'] });
      expect(answer.status).toBe(302);
      const redirect = answer.location!;
      expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URL);
      expect(redirect.searchParams.get('state')).toBe(provider.expectedState);
      const code = redirect.searchParams.get('code')!;
      expect(code).toMatch(/^mfo_code_/);

      const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
      await transport.finishAuth(code);
      first = provider.tokens()!;
      expect(first).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'models:read jobs:read video-editor:read',
      });
      expect(first.access_token).toMatch(/^mfo_at_/);
      expect(first.refresh_token).toMatch(/^mfo_rt_/);

      await client.connect(transport);
      const models = await client.callTool({ name: 'list_models', arguments: {} });
      expect(models.isError).toBeFalsy();
      expect(JSON.stringify(models.structuredContent)).toContain('"models"');
      const projects = await client.callTool({ name: 'video_editor_list_projects', arguments: {} });
      expect(projects.isError).toBeFalsy();
      expect(projects.structuredContent).toMatchObject({ projects: [] });
      await client.close();
    });

    it('grants only the approved scopes, through an API key of the user named after the client', async () => {
      const client = await mcpWithToken(first.access_token);
      const refused = await client.callTool({
        name: 'video_editor_create_project',
        arguments: { name: 'Not allowed' },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('video-editor:write');
      await client.close();

      const key = (await keysOf(alice)).find((k) => k.name === 'OAuth: Claude Test Client');
      expect(key).toMatchObject({ scopes: ['models:read', 'jobs:read', 'video-editor:read'], revoked_at: null });
      // Usage records are the key's, as for any API key.
      let paths: string[] = [];
      for (let i = 0; i < 50 && paths.length === 0; i++) {
        paths = (await db.query('SELECT path FROM gateway.usage WHERE api_key_id = $1', [key!.id])).rows.map(
          (r: { path: string }) => r.path,
        );
        if (paths.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(paths.length).toBeGreaterThan(0);
      expect(new Set(paths)).toEqual(new Set(['/api/mcp']));
    });

    it('refreshes an expired access token on its own, rotating the refresh token', async () => {
      const hash = createHash('sha256').update(first.access_token).digest('hex');
      expect(
        (
          await db.query(
            "UPDATE gateway.oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
            [hash],
          )
        ).rowCount,
      ).toBe(1);
      expect((await mcpStatus(first.access_token)).status).toBe(401);

      const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
      const models = await client.callTool({ name: 'list_models', arguments: {} });
      expect(models.isError).toBeFalsy();
      await client.close();

      const second = provider.tokens()!;
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.scope).toBe('models:read jobs:read video-editor:read');
    });

    it('revokes the whole grant when a rotated refresh token is used again', async () => {
      const current = provider.tokens()!;
      const clientId = (provider.clientInformation() as { client_id: string }).client_id;
      const replay = await token({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token!,
        client_id: clientId,
      });
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe('invalid_grant');

      const refused = await mcpStatus(current.access_token);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`);
      const again = await token({
        grant_type: 'refresh_token',
        refresh_token: current.refresh_token!,
        client_id: clientId,
      });
      expect(again.body.error).toBe('invalid_grant');
      const key = (await keysOf(alice)).find((k) => k.name === 'OAuth: Claude Test Client');
      expect(key!.revoked_at).not.toBeNull();
    });
  });

  describe('the token endpoint', () => {
    it('refuses a wrong PKCE verifier, then exchanges the code with the right one, once', async () => {
      const { clientId, code, verifier } = await approvedCode('PKCE Client');
      const wrong = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: pkcePair().verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');

      const right = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(right.status).toBe(200);
      expect(right.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: ALL_SCOPES.join(' ') });
      expect((await mcpStatus(right.body.access_token)).status).toBe(200);

      // A second use is refused, and what the first use produced is revoked (OAuth 2.1 §4.1.3).
      const twice = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(twice.status).toBe(400);
      expect(twice.body.error).toBe('invalid_grant');
      expect((await mcpStatus(right.body.access_token)).status).toBe(401);
    });

    it('refuses a code presented by another client, or with another redirect_uri', async () => {
      const { clientId, code, verifier } = await approvedCode('Bound Client');
      const foreign = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: sharedClientId,
      });
      expect(foreign.body.error).toBe('invalid_grant');
      const elsewhere = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: 'http://127.0.0.1:53682/other',
        client_id: clientId,
      });
      expect(elsewhere.body.error).toBe('invalid_grant');
      const ok = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(ok.status).toBe(200);
    });

    it('refuses a code exchanged without the redirect_uri its authorization request named, with 400 invalid_grant', async () => {
      const { clientId, code, verifier } = await approvedCode('Forgetful Client');
      const without = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        client_id: clientId,
      });
      expect(without.status).toBe(400);
      expect(without.body).toMatchObject({
        error: 'invalid_grant',
        error_description: 'redirect_uri is required: the authorization request named one',
      });
      const ok = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(ok.status).toBe(200);
    });

    it('exchanges without redirect_uri a code whose authorization request left it out (one registered URI)', async () => {
      const reg = await register('Single URI Client');
      const clientId = String(reg.body.client_id);
      const { verifier, challenge } = pkcePair();
      const url = new URL(authorizationUrl(clientId, challenge));
      url.searchParams.delete('redirect_uri');
      const answer = await consent(alice, url);
      expect(answer.status).toBe(302);
      expect(`${answer.location!.origin}${answer.location!.pathname}`).toBe(REDIRECT_URL);
      const code = answer.location!.searchParams.get('code')!;
      const ok = await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId });
      expect(ok.status).toBe(200);
    });

    it('refuses a code after its ten minutes', async () => {
      const { clientId, code, verifier } = await approvedCode('Slow Client');
      await db.query("UPDATE gateway.oauth_codes SET expires_at = now() - interval '1 second' WHERE client_id = $1", [
        clientId,
      ]);
      const late = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(late.status).toBe(400);
      expect(late.body.error).toBe('invalid_grant');
    });

    it('refreshes with the refresh token, narrowing scopes on request but never widening them', async () => {
      const { clientId, code, verifier } = await approvedCode('Refresh Client');
      const issued = (
        await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        })
      ).body;
      const narrowed = await token({
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        scope: 'jobs:read',
        client_id: clientId,
      });
      expect(narrowed.status).toBe(200);
      // models:read is on every key (the contract), narrowed or not: list_models still answers.
      expect(narrowed.body.scope).toBe('models:read jobs:read');
      const narrowedClient = await mcpWithToken(narrowed.body.access_token);
      const models = await narrowedClient.callTool({ name: 'list_models', arguments: {} });
      expect(models.isError).toBeFalsy();
      await narrowedClient.close();
      expect(narrowed.body.refresh_token).not.toBe(issued.refresh_token);
      const wider = await token({
        grant_type: 'refresh_token',
        refresh_token: narrowed.body.refresh_token,
        scope: 'jobs:read nonsense:scope',
        client_id: clientId,
      });
      expect(wider.status).toBe(400);
      expect(wider.body.error).toBe('invalid_scope');
      // The old access token lives on until it expires; the new one works too.
      expect((await mcpStatus(issued.access_token)).status).toBe(200);
      expect((await mcpStatus(narrowed.body.access_token)).status).toBe(200);
    });
  });

  describe('revocation', () => {
    it('revokes the grant from an access token: its tokens and its API key stop working', async () => {
      const { clientId, code, verifier } = await approvedCode('Revoked Client');
      const issued = (
        await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        })
      ).body;
      const client = await mcpWithToken(issued.access_token);
      expect((await client.callTool({ name: 'list_models', arguments: {} })).isError).toBeFalsy();
      await client.close();

      const res = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: issued.access_token,
          token_type_hint: 'access_token',
          client_id: clientId,
        }).toString(),
      });
      expect(res.status).toBe(200);

      const refused = await mcpStatus(issued.access_token);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain('resource_metadata=');
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: clientId })).body
          .error,
      ).toBe('invalid_grant');
      const key = (await keysOf(alice)).find((k) => k.name === 'OAuth: Revoked Client');
      expect(key!.revoked_at).not.toBeNull();
    });

    it('revokes the grant from a refresh token too', async () => {
      const { clientId, code, verifier } = await approvedCode('Refresh Revoked Client');
      const issued = (
        await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        })
      ).body;
      const res = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: issued.refresh_token, client_id: clientId }).toString(),
      });
      expect(res.status).toBe(200);
      expect((await mcpStatus(issued.access_token)).status).toBe(401);
    });

    it('ignores a token revoked by a client it was not issued to', async () => {
      const { clientId, code, verifier } = await approvedCode('Victim Client');
      const issued = (
        await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        })
      ).body;
      const res = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: issued.access_token, client_id: sharedClientId }).toString(),
      });
      expect(res.status).toBe(200);
      expect((await mcpStatus(issued.access_token)).status).toBe(200);
    });

    it('ends OAuth access when the user revokes the backing key in the dashboard', async () => {
      const { clientId, code, verifier } = await approvedCode('Dashboard Revoked Client');
      const issued = (
        await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        })
      ).body;
      const key = (await keysOf(alice)).find((k) => k.name === 'OAuth: Dashboard Revoked Client')!;
      expect((await alice.delete(`/keys/${key.id}`)).status).toBe(200);
      expect((await mcpStatus(issued.access_token)).status).toBe(401);
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: clientId })).body
          .error,
      ).toBe('invalid_grant');
    });
  });

  describe('registration and the authorization endpoint', () => {
    it('registers public clients only, and refuses redirect URIs that are neither https nor loopback http', async () => {
      const ok = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Wants a secret',
          redirect_uris: ['https://app.example.com/cb'],
          token_endpoint_auth_method: 'client_secret_post',
        }),
      });
      expect(ok.status).toBe(201);
      const body = await jsonOf(ok);
      expect(body).toMatchObject({
        client_id: expect.any(String),
        token_endpoint_auth_method: 'none',
        redirect_uris: ['https://app.example.com/cb'],
      });
      expect(body.client_secret).toBeUndefined();

      for (const uri of ['http://app.example.com/cb', 'myapp://callback']) {
        const refused = await register('Bad redirect', [uri]);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toBe('invalid_redirect_uri');
      }
    });

    it('answers an unregistered redirect_uri with a 400 of its own, never a redirect', async () => {
      const url = authorizationUrl(sharedClientId, pkcePair().challenge, {
        redirect_uri: 'https://attacker.example/cb',
      });
      const res = await fetch(url, { headers: { cookie: alice.cookieHeader }, redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect((await jsonOf(res)).error).toBe('invalid_request');
    });

    it('refuses an unknown client_id with a 400', async () => {
      const res = await fetch(authorizationUrl('no-such-client', pkcePair().challenge), {
        headers: { cookie: alice.cookieHeader },
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect((await jsonOf(res)).error).toBe('invalid_client');
    });

    it('accepts PKCE S256 only: a plain challenge goes back to the client as invalid_request', async () => {
      const res = await fetch(authorizationUrl(sharedClientId, 'plain-challenge', { code_challenge_method: 'plain' }), {
        headers: { cookie: alice.cookieHeader },
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('code')).toBeNull();
    });

    it('sends a denial back to the client as access_denied, with its state and no code', async () => {
      const reg = await register('Denied Client');
      const answer = await consent(alice, authorizationUrl(String(reg.body.client_id), pkcePair().challenge), {
        decision: 'deny',
      });
      expect(answer.status).toBe(302);
      expect(`${answer.location!.origin}${answer.location!.pathname}`).toBe(REDIRECT_URL);
      expect(answer.location!.searchParams.get('error')).toBe('access_denied');
      expect(answer.location!.searchParams.get('state')).toBe('st-1');
      expect(answer.location!.searchParams.get('code')).toBeNull();
      expect((await keysOf(alice)).some((k) => k.name === 'OAuth: Denied Client')).toBe(false);
    });

    it('refuses an approval without the session CSRF token, or from another origin', async () => {
      const url = authorizationUrl(sharedClientId, pkcePair().challenge);
      const noToken = await consent(alice, url, { csrf: null });
      expect(noToken.status).toBe(403);
      expect(noToken.location).toBeNull();
      const wrongToken = await consent(alice, url, { csrf: 'A'.repeat(43) });
      expect(wrongToken.status).toBe(403);
      const crossOrigin = await consent(alice, url, { origin: 'https://evil.example' });
      expect(crossOrigin.status).toBe(403);
      expect(crossOrigin.location).toBeNull();
    });

    it('never grants a scope the client did not ask for, whatever the form says', async () => {
      const reg = await register('Modest Client');
      const clientId = String(reg.body.client_id);
      const { verifier, challenge } = pkcePair();
      const answer = await consent(alice, authorizationUrl(clientId, challenge, { scope: 'jobs:read' }), {
        scopes: ['jobs:read', 'video:write', 'image:write'],
      });
      const code = answer.location!.searchParams.get('code')!;
      const issued = await token({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URL,
        client_id: clientId,
      });
      expect(issued.body.scope).toBe('models:read jobs:read');
    });
  });

  describe('in a browser', () => {
    it('sends a signed-out user through the dashboard sign-in back to the consent page, and the approval to the client', async () => {
      const browser = await launchBrowser();
      try {
        const { context, page, problems } = await newWatchedContext(browser);
        const reg = await register('Browser Client');
        const clientId = String(reg.body.client_id);
        const { verifier, challenge } = pkcePair();
        // Nothing listens at the redirect URI: the browser's arrival there is the client receiving the answer.
        let arrived: URL | undefined;
        await context.route(`${REDIRECT_URL}**`, (route) => {
          arrived = new URL(route.request().url());
          return route.fulfill({ status: 200, contentType: 'text/plain', body: 'received' });
        });

        await page.goto(
          authorizationUrl(clientId, challenge, { scope: 'video:write jobs:read', state: 'browser-state' }),
        );
        await page.waitForURL(/\/dashboard\/#\/signin\?return_to=/);
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        expect(await page.getByRole('link', { name: 'Create one' }).getAttribute('href')).toMatch(
          /^#\/signup\?return_to=%2Foauth%2Fauthorize%3F/,
        );
        await page.getByLabel('Email').fill(aliceEmail);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();

        await page.getByRole('heading', { name: 'Authorize Browser Client' }).waitFor();
        expect(await page.getByLabel(/models:read/).isChecked()).toBe(true);
        expect(await page.getByLabel(/models:read/).isDisabled()).toBe(true);
        await page.getByLabel(/video:write/).uncheck();
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.waitForURL(`${REDIRECT_URL}**`);

        expect(arrived!.searchParams.get('state')).toBe('browser-state');
        const code = arrived!.searchParams.get('code')!;
        const issued = await token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URL,
          client_id: clientId,
        });
        expect(issued.body.scope).toBe('models:read jobs:read');
        // No CSP violation or script error on the way; the one 401 is the SPA asking /me before sign-in.
        expect(problems.filter((p) => !p.includes('status of 401'))).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  });
});
