import type { Express } from 'express';
import request from 'supertest';
import type { Knex } from '@mf/db';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { SCOPES } from '../auth/scopes';
import { SessionStore } from '../dashboard/session-store';
import { oauthRouter } from './router';
import { looksLike, newSecret } from './tokens';

const logger = createLogger('gateway-oauth-router-test', 'silent');
const BASE = 'https://media.example.com';

// Nothing tested here reaches the database (metadata, and registrations refused before storing).
const noDb = {} as Knex;

function app(): Express {
  const a = createHttpApp({ logger });
  a.use(oauthRouter({ db: noDb, sessions: new SessionStore(noDb), cookies: { secure: true }, publicBaseUrl: BASE, rateLimit: false }));
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
    a.use(oauthRouter({ db: noDb, sessions: new SessionStore(noDb), cookies: { secure: false }, publicBaseUrl: 'http://gateway.lan:8080', rateLimit: false }));
    const res = await request(a).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body.issuer).toBe('http://gateway.lan:8080/');
  });
});

describe('OAuth client registration refusals', () => {
  it.each([['http://app.example.com/cb'], ['myapp://callback']])('refuses the redirect URI %s with invalid_redirect_uri', async (uri) => {
    const res = await request(app()).post('/oauth/register').send({ client_name: 'x', redirect_uris: [uri] }).expect(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
  });

  it('refuses a client that does not use the authorization code grant', async () => {
    const res = await request(app()).post('/oauth/register').send({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] }).expect(400);
    expect(res.body.error).toBe('invalid_client_metadata');
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
