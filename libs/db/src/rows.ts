/**
 * Knex answers rows as `any`: a repository names the row type it selected, once, here. The
 * columns a query selects are the repository's contract with its own schema (its migrations).
 */
export async function rowsOf<T>(query: PromiseLike<unknown>): Promise<T[]> {
  return (await query) as T[];
}

/** The row a `.first()` query found, or undefined. */
export async function rowOf<T>(query: PromiseLike<unknown>): Promise<T | undefined> {
  return (await query) as T | undefined;
}

/** The rows of a `db.raw(...)` query (pg answers `{ rows }`). */
export async function rawRowsOf<T>(query: PromiseLike<unknown>): Promise<T[]> {
  return ((await query) as { rows: T[] }).rows;
}
