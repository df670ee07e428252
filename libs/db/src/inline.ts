import type { Knex } from 'knex';
import { lastStatementRows, withPooledConnection } from './connection';
import { sqlString } from './literals';

/**
 * A binding as a quoted literal. Quoted even for numbers and booleans: a quoted literal is of
 * unknown type, as a parameter is, so the server infers the same types as for the parameterised
 * statement. Only the kinds the callers bind; anything else is refused, never guessed.
 */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return sqlString(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot inline ${value}`);
    return `'${value}'`;
  }
  if (typeof value === 'boolean') return `'${value}'`;
  if (value instanceof Date) return sqlString(value.toISOString());
  throw new Error(`cannot inline a binding of type ${typeof value}`);
}

/** A knex statement as plain SQL with its bindings inlined, for a simple-protocol query. */
export function inlineStatement(statement: Knex.QueryBuilder | Knex.Raw): string {
  const { sql, bindings } = statement.toSQL().toNative();
  let next = 0;
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    // knex numbers its placeholders $1..$k in order: anything else is a "$n" of the SQL text itself.
    if (Number(n) !== ++next) throw new Error('unexpected placeholder order in a statement to inline');
    return literal(bindings[next - 1]);
  });
  if (next !== bindings.length) throw new Error('placeholders and bindings differ in a statement to inline');
  return text;
}

/**
 * `first`, committed on its own, then `then` (its own transaction, autocommitted), in one round
 * trip; resolves the rows of `then`. What `first` writes is durable before `then` runs, so `then`
 * blocking on a lock (and the process dying meanwhile) never loses it. If `first` fails, `then`
 * does not run.
 */
export function commitThen<T>(db: Knex, first: Knex.QueryBuilder, then: Knex.QueryBuilder): Promise<T[]> {
  const sql = `BEGIN; ${inlineStatement(first)}; COMMIT; ${inlineStatement(then)}`;
  return withPooledConnection(db, async (conn) => lastStatementRows<T>(await conn.query(sql)));
}
