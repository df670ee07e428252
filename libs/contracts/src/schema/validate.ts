import type Joi from 'joi';
import { INVALID_JSON_BODY, NOT_AN_OBJECT } from '@mf/errors';
import { STRICT } from './rules';

/** The outcome of validating a request: the value with defaults applied, or the one error message. */
export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

export interface ValidateOptions {
  /** What a missing body (a bare POST) means: `{}` (every field optional) or `Invalid JSON body`. */
  absent?: 'empty' | 'invalid';
}

const fieldLists = new WeakMap<Joi.Schema, string[]>();

/** The fields an object schema accepts, in the order it defines them. */
export function fieldsOf(schema: Joi.ObjectSchema): string[] {
  let fields = fieldLists.get(schema);
  if (!fields) {
    fields = Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
    fieldLists.set(schema, fields);
  }
  return fields;
}

/**
 * Validates a request body against its schema the way every public endpoint does: a body that is
 * not an object is refused as such; an unknown field is an error naming it (and listing the ones
 * accepted), so a typo never falls back to a default and costs money; then the fields in the
 * schema's order, strictly typed, first problem only, with the schema's own messages.
 */
export function validateBody<T>(
  schema: Joi.ObjectSchema<T>,
  body: unknown,
  { absent = 'invalid' }: ValidateOptions = {},
): Validated<T> {
  if (body === undefined) {
    if (absent === 'invalid') return { ok: false, error: INVALID_JSON_BODY };
    body = {};
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, error: NOT_AN_OBJECT };
  const fields = fieldsOf(schema);
  const unknown = Object.keys(body).filter((k) => !fields.includes(k));
  if (unknown.length) {
    return {
      ok: false,
      error: `unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => k.slice(0, 64)).join(', ')} (accepted: ${fields.join(', ')})`,
    };
  }
  return validateValue(schema, body);
}

/** Validates any value (a query, a tool's arguments) with the strict options; the error is the schema's own message. */
export function validateValue<T>(schema: Joi.Schema<T>, value: unknown): Validated<T> {
  const result = schema.validate(value, STRICT);
  if (result.error) return { ok: false, error: result.error.message };
  return { ok: true, value: result.value };
}

/**
 * Validates a query string the way the list endpoints do: an empty value is "not given"; a
 * repeated (?a=1&a=2) or bracketed (?a[x]=1) parameter is refused; an unknown one is an error
 * naming it; values are converted from their text (limit=20 is 20) and checked by the schema.
 */
export function validateQuery<T>(schema: Joi.ObjectSchema<T>, query: Record<string, unknown>): Validated<T> {
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string')
      return { ok: false, error: `${name.slice(0, 64)} must be given once, as a plain value` };
    given[name] = value;
  }
  const fields = fieldsOf(schema);
  const unknown = Object.keys(query).filter((k) => !fields.includes(k));
  if (unknown.length) {
    return {
      ok: false,
      error: `unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => k.slice(0, 64)).join(', ')} (accepted: ${fields.join(', ')})`,
    };
  }
  const result = schema.validate(given, { abortEarly: true, convert: true });
  if (result.error) return { ok: false, error: result.error.message };
  return { ok: true, value: result.value };
}
