import { IDEMPOTENCY_KEY_HEADER, KEY_REUSED, MAX_KEY_LENGTH, REPLAYED_HEADER } from '../../core/idempotency/key-header';

type Json = Record<string, unknown>;

export const IDEMPOTENCY_DESCRIPTION = [
  `Every POST under \`/api/v1\` accepts an optional \`${IDEMPOTENCY_KEY_HEADER}\` header (1-${MAX_KEY_LENGTH} characters, e.g. a UUID), per user:`,
  'the first request with a key runs and its answer is kept for 24 hours (by default); a retry with the same key and the same request (method, path, JSON body)',
  `gets that answer again, with \`${REPLAYED_HEADER}: true\`, without running twice (one charge). A retry that arrives while the first is still running`,
  'waits for it. The same key with a different request is a 422. Answers 400, 401, 403 and 429 are not kept (the request did nothing): fix it',
  'and retry with the same key.',
].join(' ');

const PARAMETER: Json = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description: `Makes a retry safe: a repeat of the same request with the same key replays the first answer instead of running again (kept 24 h, per user). 1-${MAX_KEY_LENGTH} characters, else 400.`,
  schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
};

const REPLAYED: Json = {
  description: `\`true\` when this is the stored answer of an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}.`,
  schema: { type: 'string', const: 'true' },
};

const REUSED_DESCRIPTION = `The ${IDEMPOTENCY_KEY_HEADER} was already used with a different request: \`${String(KEY_REUSED().body.error)}\`.`;

/**
 * Documents the Idempotency-Key on every POST under /api/v1 of an OpenAPI document: the header
 * parameter, the 422 of a reused key and the Idempotent-Replayed header on every response (a
 * stored answer of any status may be replayed). Applied to the whole document, so a POST added
 * later is covered too.
 */
export function withIdempotencyKeyDocs<T extends object>(document: T): T {
  const doc = structuredClone(document) as unknown as Json;
  const components = doc.components as Json;
  const responses = components.responses as Record<string, Json>;
  components.parameters = { ...(components.parameters as Json | undefined), IdempotencyKey: PARAMETER };
  components.headers = { ...(components.headers as Json), [REPLAYED_HEADER]: REPLAYED };
  responses.IdempotencyKeyReused = {
    description: REUSED_DESCRIPTION,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  const info = doc.info as Json;
  info.description = `${String(info.description)}\n\n${IDEMPOTENCY_DESCRIPTION}`;

  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const post = item.post as Json | undefined;
    if (!path.startsWith('/api/v1/') || !post) continue;
    post.parameters = [
      ...((post.parameters as Json[] | undefined) ?? []),
      { $ref: '#/components/parameters/IdempotencyKey' },
    ];
    const opResponses = post.responses as Record<string, Json>;
    opResponses['422'] = opResponses['422']
      ? reusedOr(opResponses['422'], responses)
      : { $ref: '#/components/responses/IdempotencyKeyReused' };
    for (const [status, response] of Object.entries(opResponses))
      opResponses[status] = withReplayedHeader(response, responses);
  }
  return doc as unknown as T;
}

/** A response object (a component's copy when `response` is a $ref to one). */
function inline(response: Json, components: Record<string, Json>): Json {
  const ref = response.$ref;
  if (typeof ref !== 'string') return response;
  const name = ref.replace('#/components/responses/', '');
  const target = components[name];
  if (!target) throw new Error(`openapi: unresolved response ${ref}`);
  return structuredClone(target);
}

function withReplayedHeader(response: Json, components: Record<string, Json>): Json {
  const r = inline(response, components);
  return {
    ...r,
    headers: {
      ...(r.headers as Json | undefined),
      [REPLAYED_HEADER]: { $ref: `#/components/headers/${REPLAYED_HEADER}` },
    },
  };
}

/** An operation's own 422 (export's corrupt_source), widened to the reused-key body too. */
function reusedOr(response: Json, components: Record<string, Json>): Json {
  const r = inline(response, components);
  const content = r.content as Record<string, { schema: Json }>;
  const own = content['application/json'].schema;
  return {
    ...r,
    description: `${String(r.description)} Or: ${REUSED_DESCRIPTION}`,
    content: { 'application/json': { schema: { anyOf: [own, { $ref: '#/components/schemas/Error' }] } } },
  };
}
