import { createDb, migrate, type Knex } from '@mf/db';
import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { migrations } from '../migrations';
import { PassThrough } from 'node:stream';
import { runBatch } from '../src/admin/batch';
import { openAdminSession, runCli } from '../src/admin/cli';
import { insertUser, searchUsers } from '../src/core/repositories/users.repository';

/** The admin side of users: the CLI's user:role and the dashboard's user search, on the real database. */
describe('user roles and search', () => {
  let database: TestDatabase;
  let db: Knex;
  const savedUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'gateway', poolMax: 2 });
    await migrate(db, 'gateway', migrations);
    // The CLI reads its database from the environment, as in production.
    process.env.DATABASE_URL = database.url;
  });
  afterAll(async () => {
    process.env.DATABASE_URL = savedUrl;
    await db?.destroy();
    await database?.drop();
  });

  it('makes a user an admin and back with user:role, printing the user', async () => {
    const u = await insertUser(db, { email: 'Role.Test@example.test', password_hash: null });
    const up = await runCli(['user:role', '--email', 'role.test@example.test', '--role', 'admin']);
    expect(up).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ user_id: u.id, email: 'Role.Test@example.test', role: 'admin' })}\n`,
    });
    expect((await db('users').first('role').where({ id: u.id }))?.role).toBe('admin');
    await runCli(['user:role', '--email', 'role.test@example.test', '--role', 'user']);
    expect((await db('users').first('role').where({ id: u.id }))?.role).toBe('user');
  });

  it('refuses an unknown role as a usage error and an unknown email as an error, changing nothing', async () => {
    const bad = await runCli(['user:role', '--email', 'role.test@example.test', '--role', 'root']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^--role must be one of: user, admin/);
    const missing = await runCli(['user:role', '--email', 'nobody@example.test', '--role', 'admin']);
    expect(missing).toEqual({ code: 1, stderr: 'error: no user with email nobody@example.test' });
    expect(await db('users').where({ role: 'admin' }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('finds users by any part of the email in any case, newest first, taking % and _ literally', async () => {
    const a = await insertUser(db, { email: 'ann_smith@corp.test', password_hash: null });
    const b = await insertUser(db, { email: 'ANNA@corp.test', password_hash: null });
    const c = await insertUser(db, { email: 'annxsmith@corp.test', password_hash: 'x' });
    expect((await searchUsers(db, 'ann', 10)).map((u) => u.id)).toEqual([c.id, b.id, a.id]);
    expect((await searchUsers(db, 'ann', 2)).map((u) => u.id)).toEqual([c.id, b.id]);
    expect((await searchUsers(db, 'Ann_', 10)).map((u) => u.email)).toEqual([a.email]);
    expect(await searchUsers(db, '%', 10)).toEqual([]);
    const [found] = await searchUsers(db, 'anna@', 10);
    expect(found).toEqual({ id: b.id, email: 'ANNA@corp.test', role: 'user', created_at: expect.any(Date) });
    expect(found).not.toHaveProperty('password_hash');
  });

  it('runs a batch of commands over one session: a user, a key of theirs, and a failure that changes nothing', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk: Buffer) => (text += chunk.toString()));
    input.end(
      [
        JSON.stringify(['user:create', '--email', 'batch.user@example.test']),
        JSON.stringify(['key:create', '--email', 'batch.user@example.test', '--scopes', 'jobs:read']),
        JSON.stringify(['key:create', '--email', 'nobody@example.test', '--scopes', 'all']),
      ].join('\n'),
    );
    const session = openAdminSession();
    const exit = await runBatch(input, output, session).finally(() => session.close());
    const [user, key, missing] = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(exit).toBe(1);
    expect(user).toEqual({ exit: 0, result: { user_id: expect.any(Number), email: 'batch.user@example.test' } });
    expect(key).toEqual({
      exit: 0,
      result: {
        id: expect.any(Number),
        key: expect.any(String),
        prefix: expect.any(String),
        scopes: ['models:read', 'jobs:read'],
      },
    });
    expect(missing).toEqual({ exit: 1, error: 'no user with email nobody@example.test' });
    const userId = (user.result as { user_id: number }).user_id;
    expect(await db('api_keys').where({ user_id: userId }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });
});
