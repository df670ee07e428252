import type { Knex } from 'knex';

/** A pg client of knex's pool, for simple-protocol queries: several statements, no parameters. */
export interface RawConnection {
  query(sql: string): Promise<unknown>;
}

/** knex's connection pool, as its client (typed `any` by knex) exposes it. */
interface KnexPool {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * Runs `fn` on one connection of knex's pool (its search_path set), so a transaction can open with
 * its first statement and close with its last (`BEGIN; ...` and `...; COMMIT`: one round trip each,
 * where knex's transaction sends BEGIN and COMMIT on their own). If `fn` fails, whatever it left
 * open is rolled back before the connection goes back; a connection that died on the way is marked
 * by knex (its error or end event) and dropped by the pool instead of being reused.
 */
export async function withPooledConnection<T>(db: Knex, fn: (conn: RawConnection) => Promise<T>): Promise<T> {
  const pool = db.client as KnexPool;
  const conn = (await pool.acquireConnection()) as RawConnection;
  try {
    return await fn(conn);
  } catch (err) {
    // Outside a transaction (already committed or rolled back) ROLLBACK only warns.
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await pool.releaseConnection(conn);
  }
}

/** The rows of the last statement of a simple query (pg answers an array for several statements). */
export function lastStatementRows<T>(result: unknown): T[] {
  const results = (Array.isArray(result) ? result : [result]) as { rows: T[] }[];
  return results[results.length - 1].rows;
}
