import type { Knex } from 'knex';

/** A pg client of knex's pool as simple-protocol queries use it (several statements, no parameters). */
export interface RawConnection {
  query(sql: string): Promise<unknown>;
}

/** knex's connection pool, as its client (typed `any` by knex) exposes it. */
interface KnexPool {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * Runs `fn` on a connection of knex's pool (its search_path set), for a transaction whose
 * statements go in fewer round trips than a knex transaction's (BEGIN with the first statement,
 * COMMIT with the last). If `fn` fails, whatever it left open is rolled back before the connection
 * goes back; a connection that died on the way is marked by knex (its error or end event) and
 * dropped by the pool instead of being reused.
 */
export async function withRawConnection<T>(db: Knex, fn: (conn: RawConnection) => Promise<T>): Promise<T> {
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

/** The rows of the last statement of a simple query (pg answers an array for several). */
export function lastRows<T>(result: unknown): T[] {
  const results = (Array.isArray(result) ? result : [result]) as { rows: T[] }[];
  return results[results.length - 1].rows;
}
