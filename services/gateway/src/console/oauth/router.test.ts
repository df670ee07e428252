import type { Express } from 'express';
import request from 'supertest';
import type { Knex } from '@mf/db';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { SCOPES } from '../../core/auth/scopes';
import { SessionStore } from '../../core/accounts/session-store';
import { oauthRouter } from './router';
import { looksLike, newSecret } from '../../core/oauth/tokens';

const logger = createLogger('gateway-oauth-router-test', 'silent');
const BASE = 'https://media.example.com';

// Nothing tested here reaches the database (metadata, and registrations refused before storing).
const noDb = {} as Knex;

function app(): Express {
  const a = createHttpApp({ logger });
  a.use(
    oauthRouter({
      db: noDb,
      sessions: new SessionStore(noDb),
      cookies: { secure: true },
      publicBaseUrl: BASE,
      rateLimit: false,
    }),
  );
  finish(a, logger);
  return a;
}

describe('OAuth discovery documents', () => {
  it('names the MCP endpoint as the protected resource, our issuer and the API scopes', async () => {
    const res = await request(app()).get('/.well-known/oauth-protected-resource/api/mcp').expect(200);
    expect(res.body).toEqual({
      resource: `${BASE}/api/mcp`,
      authorization_servers: [`${BASE}/`],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Mediaforge MCP',
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves the root protected-resource document too, naming the origin', async () => {
    const res = await request(app()).get('/.well-known/oauth-protected-resource').expect(200);
    expect(res.body.resource).toBe(`${BASE}/`);
    expect(res.body.authorization_servers).toEqual([`${BASE}/`]);
  });

  it('describes the authorization server: /oauth endpoints, code + PKCE S256, public clients', async () => {
    const res = await request(app()).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body).toMatchObject({
      issuer: `${BASE}/`,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPES],
    });
  });

  it('starts even when the issuer is plain http on a LAN host (the SDK router would throw)', async () => {
    const a = createHttpApp({ logger });
    a.use(
      oauthRouter({
        db: noDb,
        sessions: new SessionStore(noDb),
        cookies: { secure: false },
        publicBaseUrl: 'http://gateway.lan:8080',
        rateLimit: false,
      }),
    );
    const res = await request(a).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body.issuer).toBe('http://gateway.lan:8080/');
  });
});

describe('OAuth client registration refusals', () => {
  it.each([['http://app.example.com/cb'], ['myapp://callback']])(
    'refuses the redirect URI %s with invalid_redirect_uri',
    async (uri) => {
      const res = await request(app())
        .post('/oauth/register')
        .send({ client_name: 'x', redirect_uris: [uri] })
        .expect(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
    },
  );

  it('refuses a client that does not use the authorization code grant', async () => {
    const res = await request(app())
      .post('/oauth/register')
      .send({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] })
      .expect(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });
});

describe('OAuth hostile input', () => {
  it.each([
    [
      'a NUL in client_name',
      '{"client_name":"a\\u0000","redirect_uris":["https://a.example/cb"]}',
      'client_name must not contain control characters',
    ],
    [
      'an unpaired surrogate in client_name',
      '{"client_name":"a\\ud800","redirect_uris":["https://a.example/cb"]}',
      'client_name must be valid Unicode text (unpaired surrogate)',
    ],
    ['a truncated body', '{"client_name":', 'Invalid JSON body'],
  ])('refuses a registration with %s with 400 before anything is stored', async (_case, body, error) => {
    // noDb has no query builder: reaching the store would fail with a 500.
    const res = await request(app()).post('/oauth/register').set('Content-Type', 'application/json').send(body);
    expect([res.status, res.body]).toEqual([400, { error }]);
  });

  it('treats a client_id with a NUL at the token endpoint as an unknown client, without a query', async () => {
    const res = await request(app())
      .post('/oauth/token')
      .type('form')
      .send('grant_type=authorization_code&code=x&code_verifier=y&client_id=%00');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('OAuth secrets', () => {
  it('are 256-bit random strings whose prefix says their kind', () => {
    const a = newSecret('access');
    expect(a).toMatch(/^mfo_at_[A-Za-z0-9_-]{43}$/);
    expect(newSecret('access')).not.toBe(a);
    expect(looksLike('access', a)).toBe(true);
    expect(looksLike('refresh', a)).toBe(false);
    expect(looksLike('access', 'mf_live_abc')).toBe(false);
  });
});
