import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../services/gateway/src/api/openapi/document';

/**
 * Checks responses against the OpenAPI description (services/gateway/src/api/openapi/document.ts):
 * the status must be documented for the operation, its required headers present and valid, and a
 * JSON body must match the response schema. fleet.ts's api() runs it on every /api/v1 response, so
 * the description cannot drift from what the code answers (docs/openapi.md).
 */

type Json = Record<string, unknown>;

const DOC_ID = 'openapi.json';
const doc = openApiDocument as unknown as Json;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(doc, DOC_ID);

/** Follows a local $ref ('#/components/...') in the document. */
function deref<T = Json>(node: unknown): T {
  let current = node as Json;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const pointer = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = doc;
    for (const part of pointer) target = (target as Json)?.[part];
    if (target === undefined) throw new Error(`openapi: unresolved $ref ${String(current.$ref)}`);
    current = target as Json;
  }
  return current as T;
}

/** A schema from the document, its local refs made to point into the document registered with ajv. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema && typeof schema === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(schema))
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC_ID}${v}` : anchored(v);
    return out;
  }
  return schema;
}

const compiled = new WeakMap<object, ValidateFunction>();
function validatorFor(schema: Json): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(anchored(schema) as Json);
    compiled.set(schema, fn);
  }
  return fn;
}

interface Route {
  template: string;
  regex: RegExp;
  params: number;
  item: Json;
}

const routes: Route[] = Object.entries(doc.paths as Record<string, Json>)
  .map(([template, item]) => {
    const params = (template.match(/\{[^}]+\}/g) ?? []).length;
    // {key} of /media/{key} may span segments; the others are one segment.
    const source = template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{key\}/g, '.+')
      .replace(/\{[^}]+\}/g, '[^/]+');
    return { template, regex: new RegExp(`^${source}$`), params, item };
  })
  // A literal path wins over a template that also matches it.
  .sort((a, b) => a.params - b.params);

/** The path template and operation for a request, or null when the document does not describe it. */
export function findOperation(method: string, urlPath: string): { template: string; operation: Json } | null {
  const pathname = urlPath.split('?')[0];
  for (const route of routes) {
    if (!route.regex.test(pathname)) continue;
    const operation = route.item[method.toLowerCase()] as Json | undefined;
    if (operation) return { template: route.template, operation };
  }
  return null;
}

export interface ValidationResult {
  /** The operation's path template, or null when the request is not a documented operation. */
  template: string | null;
  errors: string[];
}

/**
 * Validates one response. Undocumented operations (an unknown path, a method the path does not
 * have) are not checked: the result has template null. Non-JSON bodies are not checked.
 */
export function validateResponse(
  method: string,
  urlPath: string,
  status: number,
  headers: Headers,
  body: unknown,
): ValidationResult {
  const found = findOperation(method, urlPath);
  if (!found) return { template: null, errors: [] };
  const responses = found.operation.responses as Json;
  const raw = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!raw)
    return {
      template: found.template,
      errors: [`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`],
    };
  const response = deref(raw);
  const errors: string[] = [];

  for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Json)) {
    const header = deref(rawHeader);
    const value = headers.get(name);
    if (value === null) {
      if (header.required) errors.push(`required header ${name} is missing`);
      continue;
    }
    if (header.schema) {
      const check = validatorFor(header.schema as Json);
      if (!check(value)) errors.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(check.errors)}`);
    }
  }

  const contentType = headers.get('content-type') ?? '';
  const content = response.content as Record<string, { schema?: Json }> | undefined;
  if (/json/i.test(contentType) && typeof body !== 'string') {
    const media = content?.['application/json'];
    if (!media?.schema) errors.push(`a JSON body is not documented for status ${status}`);
    else {
      const check = validatorFor(media.schema);
      if (!check(body)) errors.push(`body: ${ajv.errorsText(check.errors, { dataVar: 'body' })}`);
    }
  }
  return { template: found.template, errors };
}

/** validateResponse, throwing an error that shows the mismatch and the body. */
export function assertResponseMatches(
  method: string,
  urlPath: string,
  status: number,
  headers: Headers,
  body: unknown,
): void {
  const { template, errors } = validateResponse(method, urlPath, status, headers, body);
  if (errors.length === 0) return;
  const shown = JSON.stringify(body);
  throw new Error(
    `Response does not match the OpenAPI document (${method.toUpperCase()} ${template} for ${urlPath}, status ${status}):\n  ${errors.join('\n  ')}\nbody: ${shown && shown.length > 2000 ? `${shown.slice(0, 2000)}...` : shown}`,
  );
}
