import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { createDb, migrate, type Knex, type Migration } from '../src';

/** Migrations that take a while, so replicas starting together really overlap. */
const slowMigrations = (runs: string[]): Migration[] =>
  ['0001_first', '0002_second'].map((name) => ({
    name,
    up: async (knex) => {
      runs.push(name);
      await knex.raw('SELECT pg_sleep(0.3)');
      await knex.schema.createTable(`t_${name}`, (t) => t.increments('id'));
    },
    down: async () => undefined,
  }));

describe('migrate', () => {
  let database: TestDatabase;
  const dbs: Knex[] = [];
  const open = (poolMax = 4): Knex => {
    const db = createDb({ url: database.url, schema: 'svc', poolMax });
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((db) => db.destroy()));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lets replicas that start together take turns: one applies each migration once, the others wait and find nothing to do', async () => {
    const runs: string[] = [];
    const migrations = slowMigrations(runs);
    const applied = await Promise.all([1, 2, 3].map(() => migrate(open(), 'svc', migrations)));
    expect(runs).toEqual(['0001_first', '0002_second']);
    expect(applied.flat().sort()).toEqual(['0001_first', '0002_second']);
    expect(applied.filter((a) => a.length === 0)).toHaveLength(2);
  });

  it('is not blocked by the lock row of a migrator that died mid-migration', async () => {
    const db = open();
    // What a replica killed between taking knex's lock and releasing it leaves behind.
    await db.withSchema('svc').table('knex_migrations_lock').update({ is_locked: 1 });
    const runs: string[] = [];
    const migrations = [
      ...slowMigrations([]),
      { name: '0003_third', up: async () => void runs.push('0003_third'), down: async () => undefined },
    ];
    expect(await migrate(db, 'svc', migrations)).toEqual(['0003_third']);
    expect(runs).toEqual(['0003_third']);
  });

  it('works with a pool of two connections (the admin CLI), one of them holding the lock', async () => {
    const noop = (name: string): Migration => ({ name, up: async () => undefined, down: async () => undefined });
    const migrations = [...slowMigrations([]), noop('0003_third'), noop('0004_fourth')];
    expect(await migrate(open(2), 'svc', migrations)).toEqual(['0004_fourth']);
  });
});
