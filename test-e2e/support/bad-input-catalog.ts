import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@mf/fleet';
import { openApiDocument } from '../../services/gateway/src/api/openapi/document';

/**
 * The public API as the OpenAPI document describes it (services/gateway/src/api/openapi/document.ts),
 * so an endpoint added there is attacked here without anyone listing it, and the hostile values
 * the bad-input suites send.
 */

type Json = Record<string, unknown>;
const doc = openApiDocument as unknown as Json;

/** JSON Schema of one body property, as far as these suites need it. */
export interface PropertySchema {
  type?: string | string[];
  items?: PropertySchema;
  enum?: unknown[];
  maxLength?: number;
}

export interface Operation {
  id: string;
  method: string;
  /** As documented, e.g. /api/v1/jobs/{id}. */
  template: string;
  /** Names of the path parameters, in order. */
  params: string[];
  authenticated: boolean;
  body: { required: string[]; properties: Record<string, PropertySchema> } | null;
}

function deref(node: unknown): Json {
  let current = node as Json;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    let target: unknown = doc;
    for (const part of current.$ref.replace(/^#\//, '').split('/')) target = (target as Json)[part];
    current = target as Json;
  }
  return current;
}

/** Every documented operation under `prefix` (default /api/v1/). */
export function documentedOperations(prefix = '/api/v1/'): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!template.startsWith(prefix)) continue;
    for (const [method, raw] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const op = raw as Json;
      const schema =
        (op.requestBody as Json | undefined) &&
        deref(((deref(op.requestBody).content as Json)['application/json'] as Json).schema);
      out.push({
        id: String(op.operationId),
        method: method.toUpperCase(),
        template,
        params: (template.match(/\{[^}]+\}/g) ?? []).map((p) => p.slice(1, -1)),
        authenticated: !(Array.isArray(op.security) && op.security.length === 0),
        body: schema
          ? {
              required: (schema.required as string[] | undefined) ?? [],
              properties: Object.fromEntries(
                Object.entries((schema.properties ?? {}) as Record<string, unknown>).map(([k, v]) => [
                  k,
                  deref(v) as PropertySchema,
                ]),
              ),
            }
          : null,
      });
    }
  }
  return out;
}

/** The path of an operation with its parameters filled in (values already URL-encoded as wanted). */
export function pathOf(op: Operation, values: Record<string, string>): string {
  return op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`no value for {${name}} of ${op.template}`);
    return values[name];
  });
}

function types(schema: PropertySchema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

export function isNullable(schema: PropertySchema): boolean {
  return types(schema).includes('null');
}

/** Whether the property holds text: a string, or an array of strings. */
export function textKind(schema: PropertySchema): 'string' | 'string[]' | null {
  const t = types(schema);
  if (t.includes('string')) return 'string';
  if (t.includes('array') && schema.items && types(schema.items).includes('string')) return 'string[]';
  return null;
}

/**
 * Values of the wrong JSON type for a property: every type the schema does not allow, among
 * string, number, boolean, object and array. `null` is left out where the schema allows it: an
 * explicit null means "not given" (docs/api-behaviour.md), so it is valid input there.
 */
export function wrongTypeValues(schema: PropertySchema): Array<[string, unknown]> {
  const t = types(schema);
  const numeric = t.includes('integer') || t.includes('number');
  const candidates: Array<[string, unknown, boolean]> = [
    ['a string', '5', t.includes('string')],
    ['a number', 42, numeric],
    ['a fraction', 1.5, t.includes('number')],
    ['a boolean', true, t.includes('boolean')],
    ['an object', { value: 'x' }, t.includes('object')],
    ['an array', ['x'], t.includes('array')],
    ['null', null, t.includes('null')],
  ];
  return candidates.filter(([, , allowed]) => !allowed).map(([label, value]) => [label, value]);
}

/**
 * A valid body for each operation that takes one, except where a test puts a bad value: so a
 * refusal can only come from that value. Ids are well-formed but need not exist (they are checked
 * after the body). A new operation with a body must be added here (a test says so).
 */
export const BASE_BODIES: Record<string, Record<string, unknown>> = {
  generateVideo: { prompt: 'a quiet lake at dawn' },
  generateImage: { prompt: 'a red bicycle' },
  estimateCost: { model: 'vidgen-2.0', prompt: 'a quiet lake at dawn' },
  createProject: { name: 'bad-input project' },
  renameProject: { name: 'renamed' },
  instruct: { instruction: 'make a five second clip' },
  exportVideo: { fit: 'fit' },
  createVideo: { name: 'second cut' },
  renameVideo: { name: 'renamed cut' },
  importAsset: { url: 'https://example.com/a.png' },
  addClip: { track: 'video', asset_id: 'ast_doesnotexist1' },
  moveClip: { idx: 1 },
  updateContext: { context_md: 'notes' },
  setAspectRatio: { aspect_ratio: '16:9' },
  recoverWebhookDeliveries: { since: '2026-01-01T00:00:00Z' },
  sendWebhookTest: { type: 'job.completed' },
  triggerEvent: { type: 'job.completed' },
  setWebhook: { url: 'https://example.com/hooks/mediaforge' },
  rotateWebhookSecret: { overlap_hours: 24 },
};

/** Text a database or a parser chokes on; each must be refused as text (400) wherever it appears. */
export const HOSTILE_TEXT: Array<{ label: string; value: string; problem: 'control' | 'surrogate' }> = [
  { label: 'a NUL', value: 'a\u0000b', problem: 'control' },
  { label: 'a NUL alone', value: '\u0000', problem: 'control' },
  { label: 'an escape sequence', value: '\u001b[2J\u001b[31mred', problem: 'control' },
  { label: 'a bell and a backspace', value: 'ding\u0007\u0008', problem: 'control' },
  { label: 'DEL', value: 'x\u007f', problem: 'control' },
  { label: 'an unpaired high surrogate', value: 'a\ud800b', problem: 'surrogate' },
  { label: 'an unpaired low surrogate', value: '\udc00', problem: 'surrogate' },
];

export function hostileTextMessage(field: string, problem: 'control' | 'surrogate'): string {
  return problem === 'control'
    ? `${field} must not contain control characters`
    : `${field} must be valid Unicode text (unpaired surrogate)`;
}

/** Bodies that are not JSON, or not JSON text: each is `Invalid JSON body`. */
export const MALFORMED_JSON: Array<[string, string | Buffer]> = [
  ['a truncated object', '{"prompt": "a cat'],
  ['trailing garbage', '{"prompt": "a cat"} trailing'],
  ['a single quote JSON', "{'prompt': 'a cat'}"],
  ['a bare word', 'undefined'],
  [
    'invalid UTF-8 bytes',
    Buffer.concat([Buffer.from('{"prompt": "a '), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]),
  ],
  ['a lone UTF-8 continuation byte', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d])],
  [
    'a UTF-8 encoded surrogate',
    Buffer.concat([Buffer.from('{"prompt": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  ],
];

/** Valid JSON that is not an object: `Request body must be a JSON object` where a body object is expected. */
export const NOT_AN_OBJECT: Array<[string, string]> = [
  ['a bare string', '"make me a video"'],
  ['null', 'null'],
  ['an array', '[{"prompt": "a cat"}]'],
  ['a number', '42'],
  ['a boolean', 'true'],
];

/** Arrays nested `levels` deep, as JSON text (JSON.stringify would overflow the stack building it). */
export function nestedArrays(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** Objects nested `levels` deep, as JSON text. */
export function nestedObjects(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/**
 * Hostile path segments (already encoded as sent). None names anything that can exist: each is a
 * 404 naming the record, except a %-escape that decodes to no character at all (400 Malformed URL).
 */
export const HOSTILE_IDS: Array<[string, string, 'not found' | 'malformed']> = [
  ['an encoded traversal', '..%2F..%2F..%2Fetc%2Fpasswd', 'not found'],
  ['a dot-encoded traversal', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'not found'],
  ['a backslash traversal', '..%5C..%5Cwindows%5Cwin.ini', 'not found'],
  ['an encoded NUL', 'job_abc%00', 'not found'],
  ['an encoded NUL alone', '%00', 'not found'],
  ['an SQL injection', '%27%20OR%201%3D1%20--', 'not found'],
  ['a stacked SQL statement', '1%3B%20DROP%20TABLE%20jobs.jobs%3B%20--', 'not found'],
  ['a CRLF header injection', 'x%0D%0AX-Injected%3A%201', 'not found'],
  ['a 10,000 character id', 'a'.repeat(10_000), 'not found'],
  ['a UTF-8 overlong slash', '%C0%AF%C0%AF', 'malformed'],
];

/** SQL text that is valid text: where a field accepts text it must be stored verbatim and do nothing. */
export const SQL_TEXT = [
  "' OR 1=1 --",
  "'); DROP TABLE editor.projects; --",
  'x" OR "1"="1',
  '1; DELETE FROM billing.ledger',
];

/** One endpoint of the dashboard's JSON API, as docs/dashboard-api.md lists it. */
export interface DashboardEndpoint {
  method: string;
  /** Under /dashboard/api, with `:id` where an id goes. */
  path: string;
  /** Body field names of the table's body column (`{email, password, name?}`: `?` optional), empty when it has none. */
  fields: string[];
  /** The fields marked optional (`name?`). */
  optional: string[];
}

/**
 * The dashboard endpoints of docs/dashboard-api.md's table, so an endpoint documented there is
 * attacked without anyone listing it here.
 */
export function dashboardEndpoints(): DashboardEndpoint[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'docs/dashboard-api.md'), 'utf8');
  const out: DashboardEndpoint[] = [];
  for (const line of text.split('\n')) {
    const m = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*\/dashboard\/api(\/\S*)\s*\|([^|]*)\|/.exec(line);
    if (!m) continue;
    const body = /^`\{([^}]*)\}`/.exec(m[3].trim());
    const names = body
      ? body[1]
          .split(',')
          .map((f) => f.split(':')[0].trim())
          .filter(Boolean)
      : [];
    const fields = names.map((f) => f.replace(/\?$/, ''));
    out.push({
      method: m[1],
      path: m[2],
      fields,
      optional: names.filter((f) => f.endsWith('?')).map((f) => f.slice(0, -1)),
    });
  }
  return out;
}
