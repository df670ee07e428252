import type Joi from 'joi';
import parse from 'joi-to-json';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses). */
export type JsonSchema = Record<string, unknown>;

/** `x-` metadata rules.ts sets for what JSON Schema says under another name. */
const RENAMED: Record<string, string> = { 'x-min-chars': 'minLength', 'x-max-chars': 'maxLength' };

function rename(node: unknown, showNull: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => rename(n, showNull));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) out[RENAMED[k] ?? k] = rename(v, showNull);
  // A map (joi's .pattern(/.*/, S)): joi-to-json adds the regex as a bogus property and closes the
  // object; JSON Schema says it as additionalProperties: S (codegen: Record<string, S>).
  const patterns = out.patternProperties as Record<string, unknown> | undefined;
  if (patterns && Object.keys(patterns).length === 1 && patterns['.*'] !== undefined) {
    out.additionalProperties = patterns['.*'];
    delete out.patternProperties;
    const props = out.properties as Record<string, unknown> | undefined;
    if (props) {
      delete props['/.*/'];
      if (Object.keys(props).length === 0) delete out.properties;
    }
  }
  // joi-to-json writes a nullable alternatives as {anyOf: [...], type: 'null'}, which only null
  // satisfies: null is one more alternative.
  if (Array.isArray(out.anyOf) && out.type === 'null') {
    delete out.type;
    out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  }
  if (out['x-null-means-absent'] === true) {
    delete out['x-null-means-absent'];
    if (showNull) acceptNull(out);
  }
  return out;
}

/** Input that may also be null (optional() in rules.ts: null means "not given"). */
function acceptNull(out: JsonSchema): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...(out.type as unknown[]), 'null'];
  else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
}

/**
 * The JSON Schema of a joi schema, as OpenAPI 3.1 and MCP tool schemas want it (joi-to-json). A
 * schema with an id (`.id('Name')`) and every named part of it land in `definitions` under their
 * ids, referenced as `#/components/schemas/Name`; the caller puts them there. `nullMeansAbsent`:
 * whether optional fields also list null as accepted (the REST document does; MCP tool schemas keep
 * to the plain types, which is all an assistant should send).
 */
export function toJsonSchema(
  schema: Joi.Schema,
  definitions: Record<string, JsonSchema> = {},
  { nullMeansAbsent = true }: { nullMeansAbsent?: boolean } = {},
): JsonSchema {
  const json = parse(schema, 'open-api-3.1', definitions) as JsonSchema;
  for (const [name, def] of Object.entries(definitions)) {
    definitions[name] = rename(def, nullMeansAbsent) as JsonSchema;
  }
  // joi-to-json also nests the definitions into the root; the caller places them instead.
  const { schemas: _nested, components: _components, ...root } = json;
  return rename(root, nullMeansAbsent) as JsonSchema;
}

const OWN_REF = /^#\/components\/schemas\/(.+)$/;

/**
 * The schema itself rather than a reference to it (request bodies and MCP tool arguments are
 * written inline: code generators such as openapi-typescript then keep defaulted fields optional).
 * Named parts it contains still land in `definitions`.
 */
export function inlineJsonSchema(schema: Joi.Schema, definitions: Record<string, JsonSchema> = {}): JsonSchema {
  const local: Record<string, JsonSchema> = {};
  const root = toJsonSchema(schema, local);
  const own = typeof root.$ref === 'string' ? OWN_REF.exec(root.$ref)?.[1] : undefined;
  const { [own ?? '']: body, ...rest } = local;
  Object.assign(definitions, rest);
  return own && body ? body : root;
}
