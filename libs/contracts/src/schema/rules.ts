import Joi from 'joi';

/**
 * The building blocks of the public request schemas. Each field says, in one message, what is
 * wrong with it (the contract names the field, not the rule that failed), and every rule is one a
 * JSON Schema can say too, so the OpenAPI document and the MCP tool schemas are derived from the
 * same definition (json-schema.ts).
 */

/** How every public request is validated: types as sent ("5" is not 5), the first problem only. */
export const STRICT: Joi.ValidationOptions = { abortEarly: true, convert: false };

/**
 * `schema`, answering any failure with `message` (or with `byCode[code]` for the codes named).
 * The message is the whole error text: no label is added.
 */
export function says<T extends Joi.Schema>(schema: T, message: string, byCode: Record<string, string> = {}): T {
  return schema.error((reports) => {
    const first = Array.isArray(reports) ? reports[0] : undefined;
    // A part of this value (an array item) that failed with its own message (a plain Error, no code) keeps it.
    if (first && first.code === undefined) return first;
    return new Error((first && byCode[first.code]) ?? message);
  }) as T;
}

/** Characters as a person (and JSON Schema's maxLength) counts them: Unicode code points, not UTF-16 units. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * A string of `min`-`max` characters counted in code points (Joi's own min/max count UTF-16
 * units). Failures carry the codes `string.minChars` / `string.maxChars`; the limits travel as
 * `x-min-chars` / `x-max-chars` metadata, which json-schema.ts turns into minLength / maxLength.
 */
export function chars(limits: { min?: number; max?: number }): Joi.StringSchema {
  const { min, max } = limits;
  return Joi.string()
    .custom((v: string, helpers) => {
      const n = codePoints(v);
      if (min !== undefined && n < min) return helpers.error('string.minChars', { limit: min });
      if (max !== undefined && n > max) return helpers.error('string.maxChars', { limit: max });
      return v;
    })
    .meta({
      ...(min !== undefined ? { 'x-min-chars': min } : {}),
      ...(max !== undefined ? { 'x-max-chars': max } : {}),
    });
}

/** Text that is not only whitespace (a blank prompt asks nothing). Failure code `string.blank`. */
export function notBlank(schema: Joi.StringSchema): Joi.StringSchema {
  return schema.custom((v: string, helpers) => (v.trim() === '' ? helpers.error('string.blank') : v));
}

/**
 * An https URL of at most 4096 characters with a host: valid for RFC 3986 (Joi) and for WHATWG
 * (what fetch parses), so a URL one side accepts is never refused by the other.
 */
export const HTTPS_URL_MAX = 4096;
// Built once: every `.uri()` call builds its own large RegExp (~225 KiB compiled), and Joi schemas
// are immutable, so the fields derived from this one share it.
const HTTPS_URL = Joi.string()
  .max(HTTPS_URL_MAX)
  .uri({ scheme: ['https'] })
  .custom((v: string, helpers) => {
    try {
      return new URL(v).hostname ? v : helpers.error('string.uriCustomScheme');
    } catch {
      return helpers.error('string.uriCustomScheme');
    }
  });
export function httpsUrl(): Joi.StringSchema {
  return HTTPS_URL;
}

/** The instants an ISO 8601 timestamp with a four-digit year names: what Postgres and every other reader hold. */
export const TIMESTAMP_RANGE = { min: '0001-01-01T00:00:00.000Z', max: '9999-12-31T23:59:59.999Z' } as const;
const TIMESTAMP_MIN_MS = Date.parse(TIMESTAMP_RANGE.min);
const TIMESTAMP_MAX_MS = Date.parse(TIMESTAMP_RANGE.max);

/**
 * An ISO 8601 timestamp within TIMESTAMP_RANGE (JavaScript reads years up to ±275760, which a
 * database then refuses). Failure code `date.range` when it is a timestamp out of that range.
 */
export function storableTimestamp(): Joi.StringSchema {
  return Joi.string()
    .isoDate()
    .custom((v: string, helpers) => {
      const at = Date.parse(v);
      return at >= TIMESTAMP_MIN_MS && at <= TIMESTAMP_MAX_MS ? v : helpers.error('date.range');
    });
}

/**
 * An optional field: absent and null both mean "not given" (its default, if any, applies). The
 * metadata makes the JSON Schema (what clients read) accept null, while the validated value, and
 * so the generated type, never holds it.
 */
export function optional<T extends Joi.Schema>(schema: T): T {
  return schema.empty(null).meta({ 'x-null-means-absent': true }) as T;
}

/**
 * Names a schema: its TypeScript type (generated/types.ts) and its OpenAPI component
 * (`#/components/schemas/<name>`) are called `name`.
 */
export function named<S extends Joi.Schema>(schema: S, name: string): S {
  return schema.id(name).meta({ className: name }) as S;
}

/** An object schema's keys and their schemas, in order (joi's fork cannot reach a key whose schema is named). */
export function keysOf(schema: Joi.ObjectSchema): [string, Joi.Schema][] {
  // $_terms.keys is joi's own list of an object's children (stable across joi 17 and 18).
  const terms =
    (schema as unknown as { $_terms: { keys: { key: string; schema: Joi.Schema }[] | null } }).$_terms.keys ?? [];
  return terms.map((k) => [k.key, k.schema]);
}

/** The same object with every key optional (a partial view, e.g. a result that is one shape or another). */
export function allOptional(schema: Joi.ObjectSchema): Joi.ObjectSchema {
  return Joi.object(Object.fromEntries(keysOf(schema).map(([k, s]) => [k, s.optional()])));
}
