import Joi from 'joi';
import { toJsonSchema, type JsonSchema } from '@mf/contracts';

/**
 * Tool schemas, derived from the joi definitions in @mf/contracts. Input schemas are documentation
 * the client sees (types, enums, limits, defaults, required arguments, no others); the values are
 * checked once, by the REST use case behind the tool, with the same schemas, so a bad argument gets
 * the same message as over REST. Output schemas describe the results and stay open to fields added
 * later (a client that validates must not break).
 */

/** A tool's arguments: each a schema from the contracts (with the tool's own wording), some required. */
export function toolArgs(args: Record<string, Joi.Schema>, required: string[] = []): Joi.ObjectSchema {
  return Joi.object(
    Object.fromEntries(
      Object.entries(args).map(([name, s]) => [name, required.includes(name) ? s.required() : s.optional()]),
    ),
  );
}

const REF = /^#\/components\/schemas\/(.+)$/;
/** Keywords whose value is one subschema: a boolean there is spelled as an object for strict validators. */
const SUBSCHEMA_KEYS = new Set(['if', 'then', 'else', 'not', 'items', 'contains', 'propertyNames']);

/**
 * Rewrites component references to the schema's own $defs, opens objects when asked, and spells a
 * boolean subschema as an object (`false` is `{"not": {}}`, `true` is `{}`): strict tool-schema
 * checkers refuse a bare boolean (schemas-strict.test.ts checks the whole list strictly).
 */
function rewrite(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, open));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace(REF, '#/$defs/$1');
    else if (open && k === 'additionalProperties' && v === false) continue;
    else if (SUBSCHEMA_KEYS.has(k) && typeof v === 'boolean') out[k] = v ? {} : { not: {} };
    else out[k] = rewrite(v, open);
  }
  // A constraint-only branch (`oneOf: [{required: [a]}, ...]`) names properties its parent defines:
  // strict checkers (Ajv's strictRequired) want each required name defined where it is required.
  const required = out.required;
  if (Array.isArray(required) && out.properties === undefined && out.type === undefined)
    out.properties = Object.fromEntries(required.map((name) => [String(name), {}]));
  return out;
}

/** A self-contained JSON Schema (named parts under $defs), as MCP tool schemas must be. */
function selfContained(schema: Joi.Schema, open: boolean): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  let root = toJsonSchema(schema, defs, { nullMeansAbsent: false });
  const own = typeof root.$ref === 'string' ? REF.exec(root.$ref)?.[1] : undefined;
  if (own && defs[own]) {
    root = defs[own];
    delete defs[own];
  }
  const body = rewrite(root, open) as JsonSchema;
  const $defs = rewrite(defs, open) as Record<string, JsonSchema>;
  return Object.keys($defs).length ? { ...body, $defs } : body;
}

export const inputJsonSchema = (args: Joi.ObjectSchema): JsonSchema => selfContained(args, false);
export const outputJsonSchema = (result: Joi.Schema): JsonSchema => selfContained(result, true);
