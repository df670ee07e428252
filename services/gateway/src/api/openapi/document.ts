import { withIdempotencyKeyDocs } from './idempotency-docs';
import { componentSchemas, headers, responses, securitySchemes } from './components';
import { OPERATIONS } from '../../operations/table';
import { operationPaths } from './operation-paths';
import { mcpPaths, mediaPaths, metaPaths, webhooks } from './other-paths';

/**
 * The OpenAPI 3.1 description of the public API (/api/v1, /media, /api/mcp) and of the webhooks we
 * send. Served at GET /api/v1/openapi.json; every response of the e2e suite is validated against it.
 * The /api/v1 operations come from the operation table (operations/table.ts), which the router is
 * made from as well; every request and response schema is derived from its one joi definition in
 * @mf/contracts (docs/openapi.md). Its text is public (the
 * API reference page): no repository paths or internal wording in it.
 */
function build() {
  const paths = {
    ...metaPaths,
    ...operationPaths(OPERATIONS),
    ...mediaPaths,
    ...mcpPaths,
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mediaforge API',
      version: '1.0.0',
      summary: 'Video and image generation, jobs, credits, the chat-driven video editor with export, webhooks and MCP.',
      description: [
        'All request and response bodies are JSON, UTF-8, at most 1 MB. Every error body is `{"error": "<message>", ...}`;',
        '5xx bodies add `request_id` (the `X-Request-Id` of the response). Every `/api/v1` route except this description and its',
        'reference page needs `Authorization: Bearer <API key>`; authenticated responses carry the `X-RateLimit-*` headers',
        '(60 requests per minute per key, fixed window).',
      ].join(' '),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This deployment (PUBLIC_BASE_URL).' }],
    security: [{ bearerApiKey: [] }],
    tags: [
      { name: 'Models', description: 'The model catalog.' },
      { name: 'Account', description: 'Credit balance.' },
      { name: 'Generation', description: 'Asynchronous video and image generation.' },
      { name: 'Jobs', description: 'Listing, polling and cancelling generation jobs.' },
      {
        name: 'Events',
        description:
          'Job events: the per-user event log and its server-sent event streams (progress and state changes).',
      },
      { name: 'Editor', description: 'The chat-driven video editor: projects, agent turns and export.' },
      {
        name: 'Editor direct edits',
        description: 'Changes to a project without an agent turn (no language model, no credits).',
      },
      { name: 'Webhooks', description: 'The key’s webhook deliveries: list, detail, resend, recover and test events.' },
      { name: 'Media', description: 'Generated and exported media, served without authentication.' },
      { name: 'MCP', description: 'The Model Context Protocol endpoint.' },
      { name: 'Meta', description: 'This description and its rendered reference.' },
    ],
    paths,
    webhooks,
    // After the paths: building them collected the named parts of their inline request bodies.
    components: { securitySchemes, headers, responses, schemas: componentSchemas() },
  };
}

// withIdempotencyKeyDocs adds the Idempotency-Key header, its 422 and Idempotent-Replayed to every POST under /api/v1.
export const openApiDocument = withIdempotencyKeyDocs(build());
