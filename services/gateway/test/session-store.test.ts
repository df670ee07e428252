import { createDb, migrate, type Knex } from '@mf/db';
import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { hashToken } from '../src/core/accounts/secrets';
import { SessionStore } from '../src/core/accounts/session-store';
import { insertUser } from '../src/core/repositories/users.repository';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Dashboard sessions against the real database, on a clock the test moves. */
describe('SessionStore', () => {
  let database: TestDatabase;
  let db: Knex;
  let clock: Date;
  let store: SessionStore;
  let n = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'gateway', poolMax: 4 });
    await migrate(db, 'gateway', migrations);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });
  beforeEach(() => {
    clock = new Date('2030-01-01T00:00:00Z');
    store = new SessionStore(db, { ttlMs: 14 * DAY, touchEveryMs: MINUTE, now: () => clock });
  });

  const newUser = async (role: 'user' | 'admin' = 'user') => {
    const u = await insertUser(db, { email: `s${n++}@example.test`, password_hash: null });
    if (role === 'admin') await db('users').update({ role }).where({ id: u.id });
    return u.id;
  };
  const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));
  const row = (token: string) =>
    db('sessions')
      .first('*')
      .where({ id_hash: hashToken(token) });

  it('keeps only the SHA-256 of the token, and resolves the token to the user, role and CSRF token', async () => {
    const userId = await newUser('admin');
    const s = await store.create(userId, 'Mozilla/5.0 test');
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.csrfToken).not.toBe(s.token);
    const stored = await db('sessions').select('*').where({ user_id: userId });
    expect(stored).toEqual([
      expect.objectContaining({ id_hash: hashToken(s.token), csrf_token: s.csrfToken, user_agent: 'Mozilla/5.0 test' }),
    ]);
    expect(JSON.stringify(stored)).not.toContain(s.token);
    expect(await store.resolve(s.token)).toEqual({
      userId,
      role: 'admin',
      csrfToken: s.csrfToken,
      expiresAt: new Date(clock.getTime() + 14 * DAY),
      refreshed: false,
    });
  });

  it('slides the expiry forward at most once a minute', async () => {
    const s = await store.create(await newUser());
    advance(30_000);
    expect((await store.resolve(s.token))?.refreshed).toBe(false);
    expect((await row(s.token)).expires_at).toEqual(new Date(Date.parse('2030-01-01T00:00:00Z') + 14 * DAY));
    advance(30_000);
    const slid = await store.resolve(s.token);
    expect(slid?.refreshed).toBe(true);
    expect(slid?.expiresAt).toEqual(new Date(clock.getTime() + 14 * DAY));
    expect(await row(s.token)).toMatchObject({ last_seen_at: clock, expires_at: slid?.expiresAt });
    advance(1000);
    expect((await store.resolve(s.token))?.refreshed).toBe(false);
  });

  it('lets a session used within every 14 days live on, and ends one left alone for 14 days', async () => {
    const kept = await store.create(await newUser());
    const left = await store.create(await newUser());
    for (let i = 0; i < 3; i++) {
      advance(13 * DAY);
      expect(await store.resolve(kept.token)).toBeDefined();
    }
    expect(await store.resolve(left.token)).toBeUndefined();
    advance(14 * DAY);
    expect(await store.resolve(kept.token)).toBeUndefined();
  });

  it('ends a session on destroy, and ignores tokens that are not ours', async () => {
    const s = await store.create(await newUser());
    await store.destroy(s.token);
    expect(await store.resolve(s.token)).toBeUndefined();
    expect(await row(s.token)).toBeUndefined();
    expect(await store.resolve('short')).toBeUndefined();
    expect(await store.resolve("' OR 1=1 --".padEnd(43, 'x'))).toBeUndefined();
  });

  it("reads the user's role at every request, so a role change counts at once", async () => {
    const userId = await newUser();
    const s = await store.create(userId);
    await db('users').update({ role: 'admin' }).where({ id: userId });
    expect((await store.resolve(s.token))?.role).toBe('admin');
  });

  it("drops a user's expired sessions when they sign in again, and all of them when the user is deleted", async () => {
    const userId = await newUser();
    await store.create(userId);
    await store.create(userId);
    advance(15 * DAY);
    await store.create(userId);
    expect(await db('sessions').where({ user_id: userId }).count({ n: '*' }).first()).toEqual({ n: 1 });
    await db('users').where({ id: userId }).delete();
    expect(await db('sessions').where({ user_id: userId }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});
