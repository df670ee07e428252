import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { withPooledConnection } from './connection';

// bigint columns (ids, credit amounts) come back as JS numbers: every figure we store stays far
// below 2^53, and strings would leak into JSON responses.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

export type { Knex };
export { rawRowsOf, rowOf, rowsOf } from './rows';
export { pipelined, withPooledConnection, type RawConnection, type Statement } from './connection';

export interface Migration {
  /** Stable, sortable name (e.g. 0001_create_users). Never rename one that has run. */
  name: string;
  up: (knex: Knex) => Promise<void>;
  down: (knex: Knex) => Promise<void>;
}

export interface DbOptions {
  url: string;
  /** The one schema this service owns; every unqualified table name resolves in it. */
  schema: string;
  poolMax?: number;
}

/** A knex instance bound to one schema through the connection's search_path. */
export function createDb({ url, schema, poolMax = 10 }: DbOptions): Knex {
  assertIdentifier(schema);
  return knexFactory({
    client: 'pg',
    // Pipeline mode: statements sent without waiting share a round trip (pipelined). knex itself
    // waits for each answer, so its own queries go as before.
    connection: { connectionString: url, application_name: schema, pipeline: true } as Knex.PgConnectionConfig,
    searchPath: [schema],
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    acquireConnectionTimeout: 10_000,
  });
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid schema name: ${name}`);
}

/**
 * Runs a service's migrations inside its own schema, with its own migrations table there, so
 * services deploy and migrate independently. Migrations are passed as objects (not files on
 * disk), so the same list works from source, from a bundle and from tests.
 *
 * Replicas starting together take turns: a Postgres advisory lock per schema, held by one pooled
 * connection while the migrations run, makes the others wait (not fail) and then find nothing
 * left to do. The lock goes with its session, so a replica killed mid-migration never blocks the
 * next start; knex's own lock row, which would stay set after such a kill, is reset under it.
 */
export async function migrate(knex: Knex, schema: string, migrations: Migration[]): Promise<string[]> {
  assertIdentifier(schema);
  const lockKey = [`mediaforge:migrate:${schema}`];
  return withPooledConnection(knex, async (conn) => {
    await conn.query('SELECT pg_advisory_lock(hashtext($1))', lockKey);
    try {
      await knex.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
      const config = { schemaName: schema, tableName: 'knex_migrations' };
      const byName = new Map(migrations.map((m) => [m.name, m]));
      // Only one migrator at a time gets here: a lock row still set is a dead migrator's.
      await knex.migrate.forceFreeMigrationsLock(config);
      const [, applied] = (await knex.migrate.latest({
        ...config,
        migrationSource: {
          getMigrations: () => Promise.resolve(migrations.map((m) => m.name)),
          getMigrationName: (name: string) => name,
          getMigration: (name: string) => Promise.resolve(byName.get(name)!),
        },
      })) as [number, string[]];
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock(hashtext($1))', lockKey);
    }
  });
}

/** Cheap readiness probe. */
export async function pingDb(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}
