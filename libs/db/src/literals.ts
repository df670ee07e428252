import pg from 'pg';

/*
 * Values written into the text of a simple-protocol query (several statements in one round trip,
 * no parameters). The one place the fleet quotes SQL by hand: anything these refuse is a bug to
 * fix at the caller, never a value to guess at.
 */

/** An integer as a literal; anything else (a fraction, NaN, beyond 2^53, a string) throws. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${String(value)}`);
  return String(value);
}

/** A string as a quoted literal (node-postgres's escapeLiteral: quotes doubled, E'' when it has a backslash). */
export function sqlString(value: string): string {
  // A NUL would end the query text on the wire; Postgres text cannot hold one anyway.
  if (value.includes('\u0000')) throw new Error('a string value contains a NUL character');
  return pg.escapeLiteral(value);
}
