import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import type { Knex } from '@mf/db';
import { finish, createHttpApp } from '@mf/http';
import { createLogger } from '@mf/logger';
import { generateApiKey, hashApiKey } from '../core/auth/api-key';
import { authOf, authenticate } from './auth.middleware';

const logger = createLogger('gateway-auth-test', 'silent');
const CHALLENGE = 'Bearer realm="api"';

interface FakeKeyRow {
  id: number;
  user_id: number;
  scopes: string[];
  key_hash: string;
  revoked_at: Date | null;
}

/**
 * Just enough of Knex for `findActiveKeyByHash`:
 * `db('api_keys').first(...cols).where({ key_hash }).whereNull('revoked_at')`, awaited.
 * It filters an in-memory table the way Postgres would and records every lookup.
 */
function fakeKnex(rows: FakeKeyRow[]) {
  const lookups: { table: string; columns: string[]; where: Record<string, unknown>; nullColumns: string[] }[] = [];
  const db = (table: string) => {
    const lookup = {
      table,
      columns: [] as string[],
      where: {} as Record<string, unknown>,
      nullColumns: [] as string[],
    };
    lookups.push(lookup);
    const builder = {
      first(...columns: string[]) {
        lookup.columns = columns;
        return builder;
      },
      where(conditions: Record<string, unknown>) {
        Object.assign(lookup.where, conditions);
        return builder;
      },
      whereNull(column: string) {
        lookup.nullColumns.push(column);
        return builder;
      },
      then<R1, R2>(onFulfilled: (v: unknown) => R1, onRejected?: (e: unknown) => R2) {
        const match = (table === 'api_keys' ? rows : []).find(
          (row) =>
            Object.entries(lookup.where).every(([k, v]) => (row as unknown as Record<string, unknown>)[k] === v) &&
            lookup.nullColumns.every((c) => (row as unknown as Record<string, unknown>)[c] === null),
        );
        const picked =
          match && Object.fromEntries(lookup.columns.map((c) => [c, (match as unknown as Record<string, unknown>)[c]]));
        return Promise.resolve(picked).then(onFulfilled, onRejected);
      },
    };
    return builder;
  };
  return { db: db as unknown as Knex, lookups };
}

const validKey = generateApiKey();
const revokedKey = generateApiKey();
const rows: FakeKeyRow[] = [
  { id: 11, user_id: 7, scopes: ['models:read', 'video:write'], key_hash: validKey.hash, revoked_at: null },
  {
    id: 12,
    user_id: 7,
    scopes: ['models:read'],
    key_hash: revokedKey.hash,
    revoked_at: new Date('2024-01-01T00:00:00Z'),
  },
];

function buildApp(db: Knex, ...after: RequestHandler[]): Express {
  const app = createHttpApp({ logger });
  app.use('/api/v1', authenticate(db), ...after);
  app.get('/api/v1/whoami', (req, res) => {
    res.json({ auth: authOf(req) });
  });
  app.post('/api/v1/video', (req, res) => {
    res.json({ ok: true, auth: req.auth });
  });
  finish(app, logger);
  return app;
}

describe('authenticate', () => {
  let fake: ReturnType<typeof fakeKnex>;
  let app: Express;
  beforeEach(() => {
    fake = fakeKnex(rows);
    app = buildApp(fake.db);
  });

  it('answers 401 "Missing Authorization header" with a Bearer challenge when the header is absent', async () => {
    const res = await request(app).get('/api/v1/whoami');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Missing Authorization header' });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(fake.lookups).toHaveLength(0);
  });

  it('treats an empty Authorization header as missing', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', '');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Missing Authorization header' });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
  });

  it('treats a whitespace-only Authorization header as missing', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', '   ');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Missing Authorization header' });
  });

  it('rejects a Basic credential as an invalid key without touching the database', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', 'Basic dXNlcjpwYXNz');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(fake.lookups).toHaveLength(0);
  });

  it('rejects "Bearer" with no key as an invalid key', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', 'Bearer');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
  });

  it('rejects a key with characters no key can contain without touching the database', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', "Bearer x'OR'1'='1");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
    expect(fake.lookups).toHaveLength(0);
  });

  it('rejects an unknown key with 401 "Invalid or revoked API key" and a Bearer challenge', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', `Bearer ${generateApiKey().key}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(fake.lookups).toHaveLength(1);
  });

  it('tells a caller who sent an OAuth access token that REST takes API keys, without a lookup', async () => {
    const res = await request(app)
      .get('/api/v1/whoami')
      .set('Authorization', `Bearer mfo_at_${'A'.repeat(43)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error:
        'OAuth access tokens are for the MCP endpoint (/api/mcp); the REST API takes API keys (mf_live_...) from the dashboard',
    });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(fake.lookups).toHaveLength(0);
  });

  it('rejects a revoked key with the same 401', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', `Bearer ${revokedKey.key}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
  });

  it('lets a valid key through and sets req.auth from its row', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', `Bearer ${validKey.key}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ auth: { userId: 7, apiKeyId: 11, scopes: ['models:read', 'video:write'] } });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('looks the key up by its hash only, never by the raw key, and skips revoked rows', async () => {
    await request(app).get('/api/v1/whoami').set('Authorization', `Bearer ${validKey.key}`);
    expect(fake.lookups).toEqual([
      {
        table: 'api_keys',
        columns: ['id', 'user_id', 'scopes'],
        where: { key_hash: hashApiKey(validKey.key) },
        nullColumns: ['revoked_at'],
      },
    ]);
    expect(JSON.stringify(fake.lookups)).not.toContain(validKey.key);
  });

  it('accepts a lower-case bearer scheme and trailing whitespace', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', `bearer ${validKey.key}  `);
    expect(res.status).toBe(200);
    expect(res.body.auth.apiKeyId).toBe(11);
  });

  it('rejects a Bearer header carrying two tokens', async () => {
    const res = await request(app).get('/api/v1/whoami').set('Authorization', `Bearer ${validKey.key} extra`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid or revoked API key' });
  });
});

describe('authOf', () => {
  it('returns the context set by authenticate', () => {
    const auth = { userId: 1, apiKeyId: 2, scopes: ['models:read'] };
    expect(authOf({ auth })).toBe(auth);
  });

  it('throws an internal error when the request was never authenticated', () => {
    expect(() => authOf({})).toThrow(expect.objectContaining({ kind: 'internal', body: { error: 'Internal error' } }));
  });
});
