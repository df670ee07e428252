import { sqlInteger, sqlString } from '@mf/db';

/**
 * SQL literals for the batch's simple-protocol queries (batch.repository.ts): a simple query may
 * carry several statements (BEGIN with the lock, the write with COMMIT: one round trip each) but
 * no parameters, so the values go into the text (quoted by @mf/db's sqlInteger and sqlString). Only
 * what the batch sends is supported: integers, strings, booleans and NULL, as typed arrays. Anything
 * else throws rather than being guessed at.
 */

export type SqlScalar = number | string | boolean | null;

export function scalarLiteral(value: SqlScalar): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return sqlInteger(value);
  return sqlString(value);
}

const ARRAY_TYPES = new Set(['bigint', 'integer', 'text', 'date', 'boolean']);

/** `ARRAY[...]::type[]`, typed even when empty. */
export function arrayLiteral(values: readonly SqlScalar[], type: string): string {
  if (!ARRAY_TYPES.has(type)) throw new Error(`unsupported array type: ${type}`);
  return `ARRAY[${values.map(scalarLiteral).join(',')}]::${type}[]`;
}

/**
 * Fills a statement's `?::type[]` placeholders, in order, with array literals of the given values.
 * The values never pass through the template, so a `?` inside a value is just a character.
 */
export function inlineArrays(sql: string, values: readonly (readonly SqlScalar[])[]): string {
  const parts = sql.split(/\?::([a-z]+)\[\]/);
  // split with one capture group: text, type, text, type, ..., text.
  if (parts.length !== values.length * 2 + 1) throw new Error('placeholders and values differ in number');
  let out = parts[0];
  for (let i = 0; i < values.length; i += 1) out += arrayLiteral(values[i], parts[2 * i + 1]) + parts[2 * i + 2];
  return out;
}
