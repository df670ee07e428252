import type { Operation } from '../../operations/operation';
import { noStoreHeader, ok, op, queryParams, ref, type Json } from '../../operations/openapi-helpers';

/** An operation of the table as the document describes it (scope note, common errors included). */
function describe(o: Operation): Json {
  const { status, description, schema, noStore } = o.reply;
  const success =
    typeof schema === 'string' ? ok(description, ref(schema), noStore ? noStoreHeader : {}) : schema.response;
  const parameters = [...(o.query ? queryParams(o.query) : []), ...(o.parameters ?? [])];
  const described = op({
    id: o.id,
    summary: o.summary,
    tag: o.tag,
    scope: o.scope,
    description: o.description,
    body: o.body,
    bodyRequired: o.bodyRequired,
    parameters: parameters.length ? parameters : undefined,
    responses: { [status]: success, ...o.statuses },
  });
  if (o.upload) {
    const requestBody = described.requestBody as { content: Record<string, unknown> };
    requestBody.content['multipart/form-data'] = {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary', description: o.upload.description } },
      },
    };
  }
  return o.allResponses ? { ...described, responses: o.allResponses } : described;
}

/** The document's paths of the operation table, in its order; a path's parameters from its first operation. */
export function operationPaths(operations: readonly Operation[]): Json {
  const paths: Record<string, Json> = {};
  for (const o of operations) {
    const key = `/api/v1${o.path}`;
    const item = (paths[key] ??= o.pathParams ? { parameters: [...o.pathParams] } : {});
    item[o.method] = describe(o);
  }
  return paths;
}
