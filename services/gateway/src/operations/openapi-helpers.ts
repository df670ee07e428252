import { inlineJsonSchema, type JsonSchema } from '@mf/contracts';
import type Joi from 'joi';

/** The small OpenAPI vocabulary the operation table (table.ts) and the rest of the document are written in. */

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const resp = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
export const jsonContent = (schema: Json): Json => ({ 'application/json': { schema } });

/** Named parts of request bodies (written inline) land here, to join components.schemas. */
export const inlineDefinitions: Record<string, JsonSchema> = {};

/** A request body's schema, inline (so code generators keep defaulted fields optional), from its joi definition. */
export const body = (schema: Joi.Schema): Json => inlineJsonSchema(schema, inlineDefinitions);

/** Headers every response of /api/v1 carries. */
export const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
/** Headers of every authenticated response (the rate limit window of the key). */
export const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
export const noStoreHeader = { 'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Store' } };

/** A 2xx JSON response of an authenticated route. */
export function ok(description: string, schema: Json, extraHeaders: Json = {}): Json {
  return {
    description,
    headers: { ...requestIdHeader, ...rateLimitHeaders, ...extraHeaders },
    content: jsonContent(schema),
  };
}

/** A JSON error response with the request id header. */
export function errorResponse(description: string, schema: Json): Json {
  return { description, headers: { ...requestIdHeader }, content: jsonContent(schema) };
}

/** The error statuses every authenticated /api/v1 operation can answer. */
export const commonErrors: Json = {
  '400': resp('BadRequest'),
  '401': resp('Unauthorized'),
  '403': resp('Forbidden'),
  '404': resp('NotFound'),
  '413': resp('PayloadTooLarge'),
  '415': resp('UnsupportedMediaType'),
  '429': resp('TooManyRequests'),
  '500': resp('InternalError'),
  '503': resp('ServiceUnavailable'),
};

export interface OperationSpec {
  id: string;
  summary: string;
  tag: string;
  scope?: string;
  description?: string;
  body?: Joi.Schema;
  bodyRequired?: boolean;
  parameters?: Json[];
  responses: Json;
}

/** One authenticated /api/v1 operation. */
export function op(spec: OperationSpec): Json {
  const scopeNote = spec.scope ? `Scope: \`${spec.scope}\`.` : 'Scope: none (any active key).';
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: [spec.description, scopeNote].filter(Boolean).join('\n\n'),
    tags: [spec.tag],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.body
      ? { requestBody: { required: spec.bodyRequired ?? true, content: jsonContent(body(spec.body)) } }
      : {}),
    responses: { ...commonErrors, ...spec.responses },
  };
}

export const pathParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});

/** The query parameters of a query schema (each field one parameter, optional). */
export function queryParams(schema: Joi.ObjectSchema): Json[] {
  const json = inlineJsonSchema(schema, inlineDefinitions) as { properties?: Record<string, Json> };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
  });
}
