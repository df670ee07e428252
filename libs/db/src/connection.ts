import type { Knex } from 'knex';

/** A parameterised statement: the values travel beside the text, never inside it. */
export interface Statement {
  text: string;
  values?: readonly unknown[];
  /** A prepared statement's name: parsed and planned once per connection, then only bound. */
  name?: string;
}

/**
 * A pg client of knex's pool. Its clients are in pipeline mode (createDb), so statements issued
 * without waiting for each other go out together and cost one round trip.
 */
export interface RawConnection {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  query(statement: Statement): Promise<{ rows: unknown[] }>;
}

/** knex's connection pool, as its client (typed `any` by knex) exposes it. */
interface KnexPool {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * Runs `fn` on one connection of knex's pool (its search_path set), so a transaction can open with
 * its first statement and close with its last (BEGIN pipelined with the first, COMMIT with the
 * last: one round trip each, where knex's transaction waits for BEGIN and COMMIT on their own). If
 * `fn` fails, whatever it left open is rolled back before the connection goes back; a connection
 * that died on the way is marked by knex (its error or end event) and dropped by the pool instead
 * of being reused.
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

/**
 * Sends the statements one behind the other without waiting (one round trip) and resolves the
 * rows of each, in order. The server runs them in order, each its own parameterised statement; in
 * an open transaction, one that fails aborts it, so the ones after it fail too (a COMMIT then
 * rolls back): the first failure is what rejects, once every answer is in.
 */
export async function pipelined(conn: RawConnection, statements: readonly Statement[]): Promise<unknown[][]> {
  const settled = await Promise.allSettled(statements.map((s) => conn.query(s)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<{ rows: unknown[] }>).value.rows);
}
