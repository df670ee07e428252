import { jsonContent, ref, requestIdHeader, resp, type Json } from '../../operations/openapi-helpers';

/** The paths outside the authenticated /api/v1 operations: this description, media, MCP. */

const mediaHeaders: Json = {
  ETag: { description: 'Strong validator of the object.', schema: { type: 'string' } },
  'Last-Modified': { description: 'HTTP date.', schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=31536000, immutable`.', schema: { type: 'string' } },
  'Accept-Ranges': { description: '`bytes`.', schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes sent.', schema: { type: 'string' } },
};
const octets = {
  'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
};

export const metaPaths: Json = {
  '/api/v1/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This OpenAPI description',
      tags: ['Meta'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document.',
          headers: { ...requestIdHeader },
          content: jsonContent({ type: 'object' }),
        },
      },
    },
  },
  '/api/v1/reference': {
    get: {
      operationId: 'getReference',
      summary: 'Rendered API reference (HTML)',
      tags: ['Meta'],
      security: [],
      responses: {
        '200': {
          description: 'An HTML page rendering this description with Redoc.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
};

export const mediaPaths: Json = {
  '/media/{key}': {
    parameters: [
      {
        name: 'key',
        in: 'path',
        required: true,
        description: 'Storage key, e.g. `jobs/<job_id>/video.mp4` (may contain slashes).',
        schema: { type: 'string' },
      },
    ],
    get: {
      operationId: 'getMedia',
      summary: 'Download a media object (single byte ranges supported)',
      description:
        'No authentication: result URLs are unguessable capability URLs usable in `<video>` and `<img>`. Honours `Range` (one range), `If-Range`, `If-None-Match` and `If-Modified-Since`.',
      tags: ['Media'],
      security: [],
      parameters: [
        { name: 'Range', in: 'header', required: false, schema: { type: 'string', examples: ['bytes=0-1023'] } },
        { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' } },
        { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
        { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
      ],
      responses: {
        '200': { description: 'The whole object.', headers: mediaHeaders, content: octets },
        '206': {
          description: 'The requested range.',
          headers: {
            ...mediaHeaders,
            'Content-Range': { description: '`bytes <start>-<end>/<size>`', schema: { type: 'string' } },
          },
          content: octets,
        },
        '304': { description: 'Not modified.' },
        '400': resp('BadRequest'),
        '404': resp('NotFound'),
        '416': {
          description: 'Range not satisfiable.',
          headers: { 'Content-Range': { description: '`bytes */<size>`', schema: { type: 'string' } } },
          content: jsonContent(ref('Error')),
        },
      },
    },
    head: {
      operationId: 'headMedia',
      summary: 'Headers of a media object',
      tags: ['Media'],
      security: [],
      responses: {
        '200': { description: 'The headers GET would send for the whole object.' },
        '304': { description: 'Not modified.' },
        '404': { description: 'No such object.' },
      },
    },
  },
};

export const mcpPaths: Json = {
  '/api/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'MCP endpoint (JSON-RPC 2.0 over streamable HTTP)',
      description:
        'The Model Context Protocol, stateless streamable HTTP: each POST carries one JSON-RPC message or a batch of up to 20 (`initialize`, `tools/list`, `tools/call`, ...) and is answered as JSON or as a `text/event-stream`. 17 tools: list_models, job_status (one job, or a list of them), generate_media and the video_editor_* tools; `tools/list` describes each. Same per-key rate limit as /api/v1, each message of a batch counted. GET and DELETE answer 405. The 401 carries `WWW-Authenticate: Bearer resource_metadata=...` pointing at /.well-known/oauth-protected-resource.',
      tags: ['MCP'],
      security: [{ bearerApiKey: [] }, { oauth2: [] }],
      requestBody: { required: true, content: jsonContent(ref('JsonRpcMessage')) },
      responses: {
        '200': {
          description: 'A JSON-RPC response, or a server-sent event stream of progress notifications and the response.',
          content: { ...jsonContent({ type: 'object' }), 'text/event-stream': { schema: { type: 'string' } } },
        },
        '202': { description: 'Accepted (a notification or a response, which has no reply).' },
        '400': {
          description:
            'Not JSON, hostile text or nesting (`{"error": ...}`, as /api/v1), or not a JSON-RPC message, or an empty batch or one of more than 20 messages (a JSON-RPC error).',
          content: jsonContent({
            anyOf: [
              ref('Error'),
              {
                type: 'object',
                required: ['jsonrpc', 'error'],
                properties: {
                  jsonrpc: { const: '2.0' },
                  error: { type: 'object', required: ['code', 'message'] },
                  id: {},
                },
              },
            ],
          }),
        },
        '401': resp('Unauthorized'),
        '413': resp('PayloadTooLarge'),
        '429': resp('TooManyRequests'),
      },
    },
  },
};

/** One webhook: a signed POST of the job to the key's URL. */
function webhook(event: string, description: string): Json {
  const header = (name: string, desc: string, schema: Json = { type: 'string' }): Json => ({
    name,
    in: 'header',
    required: true,
    description: desc,
    schema,
  });
  return {
    post: {
      summary: event,
      description: `${description} Retried after 30 s, 2 min and 10 min on a non-2xx answer (408 and 429 included; other 4xx are not retried). Verify the signature: hex HMAC-SHA256 of \`<timestamp>.<raw body>\` keyed with the signing secret, compared in constant time; refuse a timestamp more than 300 seconds from your clock.`,
      security: [],
      parameters: [
        header('User-Agent', '`Mediaforge-Webhooks/1.0`.'),
        header('X-Service-Event', 'The event.', { type: 'string', const: event }),
        header('X-Service-Timestamp', 'When this attempt was signed, Unix seconds.', {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
        header('X-Service-Signature', '`t=<timestamp>,v1=<hex HMAC-SHA256>`.', {
          type: 'string',
          pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$',
        }),
        header(
          'X-Service-Event-Id',
          "The event log's id of this event (`evt_` and 16 digits, as in the event streams' `id:` and GET /api/v1/events); the same for every attempt and resend of one event: drop duplicates by it.",
        ),
        header('X-Service-Delivery-Attempt', '1 for the first attempt, then 2, 3, 4.', {
          type: 'string',
          pattern: '^[1-4]$',
        }),
        {
          name: 'X-Service-Test',
          in: 'header',
          required: false,
          description:
            '`true` on a test sent from the dashboard (a sample `job.completed` of a job that does not exist); absent on real deliveries.',
          schema: { type: 'string', const: 'true' },
        },
      ],
      requestBody: { required: true, content: jsonContent(ref('WebhookPayload')) },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery.' },
        '401': { description: 'Signature mismatch (not retried).' },
      },
    },
  };
}

export const webhooks: Json = {
  'job.completed': webhook('job.completed', 'A job finished; `result` holds its media URLs.'),
  'job.failed': webhook('job.failed', 'A job failed after submission; `error` says why; the credits were refunded.'),
  'job.cancelled': webhook(
    'job.cancelled',
    'A job was cancelled with DELETE /api/v1/jobs/{id}; the credits were refunded.',
  ),
};
