/**
 * The OpenAPI 3.1 description of the public API (/api/v1, /media, /api/mcp) and of the webhooks we
 * send. Served at GET /api/v1/openapi.json; every response of the e2e suite is validated against it
 * (test-e2e/support/openapi-validator.ts), so it cannot drift from the code unnoticed.
 * Written by hand from the code (services/gateway/src/http, usecases, libs/contracts); see docs/openapi.md.
 */

import { IMAGE_ASPECT_RATIOS as CATALOG_IMAGE_ASPECT_RATIOS, VIDEO_ASPECT_RATIOS as CATALOG_VIDEO_ASPECT_RATIOS } from '@mf/catalog';
import { EXPORT_ERROR_CODES as CONTRACT_EXPORT_ERROR_CODES, PROJECT_ASPECT_RATIOS as CONTRACT_PROJECT_ASPECT_RATIOS, TRACKS as CONTRACT_TRACKS } from '@mf/contracts';
import { SCOPES as API_SCOPES } from '../auth/scopes';
import { withIdempotencyKeyDocs } from '../idempotency/openapi';
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const resp = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const jsonContent = (schema: Json): Json => ({ 'application/json': { schema } });

const VIDEO_DURATIONS = [4, 5, 6, 8, 10, 15];
// Every enum comes from the module that enforces it, so the description cannot drift from the rules.
const VIDEO_ASPECT_RATIOS = [...CATALOG_VIDEO_ASPECT_RATIOS];
const IMAGE_ASPECT_RATIOS = [...CATALOG_IMAGE_ASPECT_RATIOS];
const PROJECT_ASPECT_RATIOS = [...CONTRACT_PROJECT_ASPECT_RATIOS];
const TRACKS = [...CONTRACT_TRACKS];
const SCOPES = [...API_SCOPES];
const EXPORT_ERROR_CODES = [...CONTRACT_EXPORT_ERROR_CODES];

const httpsUrl: Json = { type: 'string', format: 'uri', pattern: '^https://', maxLength: 4096, description: 'An https URL on a public address.' };
const timestamp: Json = { type: 'string', format: 'date-time', description: 'ISO 8601, UTC.' };

/** Headers every response of /api/v1 carries. */
const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
/** Headers of every authenticated response (the rate limit window of the key). */
const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const mediaHeaders: Json = {
  ETag: { description: 'Strong validator of the object.', schema: { type: 'string' } },
  'Last-Modified': { description: 'HTTP date.', schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=31536000, immutable`.', schema: { type: 'string' } },
  'Accept-Ranges': { description: '`bytes`.', schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes sent.', schema: { type: 'string' } },
};
const noStoreHeader = { 'Cache-Control': { $ref: '#/components/headers/Cache-Control-No-Store' } };

/** A 2xx JSON response of an authenticated route. */
function ok(description: string, schema: Json, extraHeaders: Json = {}): Json {
  return { description, headers: { ...requestIdHeader, ...rateLimitHeaders, ...extraHeaders }, content: jsonContent(schema) };
}

/** The error statuses every authenticated /api/v1 operation can answer. */
const commonErrors: Json = {
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

function op(spec: { id: string; summary: string; tag: string; scope?: string; description?: string; body?: Json; bodyRequired?: boolean; parameters?: Json[]; responses: Json }): Json {
  const scopeNote = spec.scope ? `Scope: \`${spec.scope}\`.` : 'Scope: none (any active key).';
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: [spec.description, scopeNote].filter(Boolean).join('\n\n'),
    tags: [spec.tag],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.body ? { requestBody: { required: spec.bodyRequired ?? true, content: jsonContent(spec.body) } } : {}),
    responses: { ...commonErrors, ...spec.responses },
  };
}

const pathParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'path', required: true, description, schema });
const projectId = pathParam('id', 'Project id (`prj_` + 1-64 letters or digits).', { type: 'string', maxLength: 100 });

const projectSchemaRef = ref('Project');
const editorErrors: Json = { '502': resp('BadGateway') };

// withIdempotencyKeyDocs adds the Idempotency-Key header, its 422 and Idempotent-Replayed to every POST under /api/v1.
export const openApiDocument = withIdempotencyKeyDocs({
  openapi: '3.1.0',
  info: {
    title: 'Mediaforge API',
    version: '1.0.0',
    summary: 'Video and image generation, jobs, credits, the chat-driven video editor with export, webhooks and MCP.',
    description: [
      'All request and response bodies are JSON, UTF-8, at most 1 MB. Every error body is `{"error": "<message>", ...}`;',
      '5xx bodies add `request_id` (the `X-Request-Id` of the response). Every `/api/v1` route except this description and its',
      'reference page needs `Authorization: Bearer <API key>`; authenticated responses carry the `X-RateLimit-*` headers',
      '(60 requests per minute per key, fixed window). See docs/api-behaviour.md for the choices where the contract is silent.',
    ].join(' '),
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: '/', description: 'This deployment (PUBLIC_BASE_URL).' }],
  security: [{ bearerApiKey: [] }],
  tags: [
    { name: 'Models', description: 'The model catalog.' },
    { name: 'Account', description: 'Credit balance.' },
    { name: 'Generation', description: 'Asynchronous video and image generation.' },
    { name: 'Jobs', description: 'Polling and cancelling generation jobs.' },
    { name: 'Editor', description: "The chat-driven video editor: the contract's five operations." },
    { name: 'Editor direct edits', description: 'Changes to a project without an agent turn (no language model, no credits).' },
    { name: 'Media', description: 'Generated and exported media, served without authentication.' },
    { name: 'MCP', description: 'The Model Context Protocol endpoint.' },
    { name: 'Meta', description: 'This description and its rendered reference.' },
  ],
  paths: {
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getOpenApi',
        summary: 'This OpenAPI description',
        tags: ['Meta'],
        security: [],
        responses: {
          '200': { description: 'The OpenAPI 3.1 document.', headers: { ...requestIdHeader }, content: jsonContent({ type: 'object' }) },
        },
      },
    },
    '/api/v1/reference': {
      get: {
        operationId: 'getReference',
        summary: 'Rendered API reference (HTML)',
        tags: ['Meta'],
        security: [],
        responses: { '200': { description: 'An HTML page rendering this description with Redoc.', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
    '/api/v1/models': {
      get: op({
        id: 'listModels',
        summary: 'List the model catalog',
        tag: 'Models',
        scope: 'models:read',
        responses: { '200': ok('Every model: vidgen-2.0, vidgen-2.0-fast, imagegen-2.', { type: 'object', required: ['models'], properties: { models: { type: 'array', items: ref('Model') } } }) },
      }),
    },
    '/api/v1/account': {
      get: op({
        id: 'getAccount',
        summary: 'Credit balance of the key owner',
        tag: 'Account',
        description: 'Read-only, nothing is charged. The period is the calendar month in UTC.',
        responses: { '200': ok('The account.', ref('Account'), noStoreHeader) },
      }),
    },
    '/api/v1/video/vidgen-2/generate': {
      post: op({
        id: 'generateVideo',
        summary: 'Submit a video generation',
        tag: 'Generation',
        scope: 'video:write',
        description: 'Asynchronous: answers 202 with a job id at once; poll `poll_url` or receive a webhook. Credits are charged before the provider call; a failed submission is refunded (502).',
        body: ref('VideoGenerateRequest'),
        responses: { '202': ok('Accepted: the job is processing.', ref('GenerationAccepted')), '402': resp('InsufficientCredits'), '502': resp('BadGateway') },
      }),
    },
    '/api/v1/image/imagegen/generate': {
      post: op({
        id: 'generateImage',
        summary: 'Submit an image generation or edit',
        tag: 'Generation',
        scope: 'image:write',
        description: 'Asynchronous, same lifecycle as video. Cost: 50 credits per image.',
        body: ref('ImageGenerateRequest'),
        responses: { '202': ok('Accepted: the job is processing.', ref('GenerationAccepted')), '402': resp('InsufficientCredits'), '502': resp('BadGateway') },
      }),
    },
    '/api/v1/jobs/{id}': {
      parameters: [pathParam('id', 'The job id.')],
      get: op({
        id: 'getJob',
        summary: 'Get a job',
        tag: 'Jobs',
        description: 'Any key of the job owner. Another user’s job, an evicted one (about 30 days) or a malformed id is a 404 `Job not found`.',
        responses: { '200': ok('The job.', ref('Job'), noStoreHeader) },
      }),
      delete: op({
        id: 'cancelJob',
        summary: 'Cancel a processing job',
        tag: 'Jobs',
        description: 'Refunds the full cost and sends job.cancelled. A completed, failed or cancelled job is a 409.',
        responses: { '200': ok('Cancelled.', ref('CancelJobReply')), '409': resp('Conflict') },
      }),
    },
    '/api/v1/media-studio/projects': {
      post: op({
        id: 'createProject',
        summary: 'Create a project',
        tag: 'Editor',
        scope: 'video-editor:write',
        description: 'Creates a project with one video, `Main video`. A request without a body uses every default.',
        body: ref('CreateProjectRequest'),
        bodyRequired: false,
        responses: { '200': ok('The new project.', { type: 'object', required: ['project'], properties: { project: projectSchemaRef } }) },
      }),
      get: op({
        id: 'listProjects',
        summary: 'List the projects of the key owner',
        tag: 'Editor',
        scope: 'video-editor:read',
        description: 'Most recently updated first, then by id. No pagination.',
        responses: { '200': ok('The projects.', { type: 'object', required: ['projects'], properties: { projects: { type: 'array', items: ref('ProjectSummary') } } }, noStoreHeader) },
      }),
    },
    '/api/v1/media-studio/projects/{id}': {
      parameters: [projectId],
      get: op({
        id: 'getProjectState',
        summary: 'Get a project: videos, library and timeline',
        tag: 'Editor',
        scope: 'video-editor:read',
        parameters: [{ name: 'video_id', in: 'query', required: false, description: 'Narrows `clips` to one video; empty counts as absent; repeated is a 400.', schema: { type: 'string', maxLength: 100 } }],
        responses: { '200': ok('The project state.', ref('ProjectState'), noStoreHeader) },
      }),
      patch: op({
        id: 'renameProject',
        summary: 'Rename a project',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: ref('NameRequest'),
        responses: { '200': ok('The renamed project.', { type: 'object', required: ['project'], properties: { project: projectSchemaRef } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/instruct': {
      parameters: [projectId],
      post: op({
        id: 'instruct',
        summary: 'Advance the editor agent one turn',
        tag: 'Editor',
        scope: 'video-editor:write',
        description:
          'Synchronous, one agent step per call, at most one media generation (typically 5-180 s; the gateway waits up to INSTRUCT_TIMEOUT_MS). Cost: 5 credits per turn (never refunded) plus media generation, refunded when nothing is delivered. 503 also when the language-model credential is not configured.',
        body: ref('InstructRequest'),
        responses: { '200': ok('The turn.', ref('InstructReply')), '402': resp('InsufficientCredits'), ...editorErrors },
      }),
    },
    '/api/v1/media-studio/projects/{id}/export': {
      parameters: [projectId],
      post: {
        ...op({
          id: 'exportVideo',
          summary: 'Export a video of the project as one mp4',
          tag: 'Editor',
          scope: 'video-editor:write',
          description: 'Stitches the multi-track timeline (video, voice, sfx, music) into one mp4. Synchronous (typically 30 s to 3 min). The export is also added to the library as an asset of kind `export`.',
          body: ref('ExportRequest'),
          bodyRequired: false,
          responses: {},
        }),
        responses: {
          ...commonErrors,
          '200': ok('The exported video.', ref('ExportReply')),
          '400': { description: 'Validation error, or `no_video_clips`.', headers: { ...requestIdHeader }, content: jsonContent({ anyOf: [ref('Error'), ref('ExportError')] }) },
          '422': resp('ExportError'),
          '429': {
            description: 'Over the API rate limit (`retry_after`), or too many exports for this user in the last minute (`rate_limited`).',
            headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
            content: jsonContent({ anyOf: [ref('RateLimitError'), ref('ExportError')] }),
          },
          '500': { description: '`ffmpeg_failed` or `export_failed`, or an internal error.', headers: { ...requestIdHeader }, content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }) },
          '502': { description: '`source_fetch_failed`.', headers: { ...requestIdHeader }, content: jsonContent(ref('ExportServerError')) },
          '503': { description: '`storage_unconfigured`, or the editor did not answer in time.', headers: { ...requestIdHeader }, content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }) },
          '504': { description: '`export_timeout` or `ffmpeg_timeout`: too long to render in one pass; split it.', headers: { ...requestIdHeader }, content: jsonContent(ref('ExportServerError')) },
        },
      },
    },
    '/api/v1/media-studio/projects/{id}/videos': {
      parameters: [projectId],
      post: op({
        id: 'createVideo',
        summary: 'Add a video to a project',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        description: 'An empty timeline in the project’s aspect ratio.',
        body: { type: 'object', additionalProperties: false, properties: { name: { type: ['string', 'null'], minLength: 1, maxLength: 120, default: 'Untitled video' } } },
        bodyRequired: false,
        responses: { '200': ok('The new video.', { type: 'object', required: ['video'], properties: { video: ref('Video') } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/videos/{videoId}': {
      parameters: [projectId, pathParam('videoId', 'Video id.')],
      patch: op({
        id: 'renameVideo',
        summary: 'Rename a video',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: ref('NameRequest'),
        responses: { '200': ok('The renamed video.', { type: 'object', required: ['video'], properties: { video: ref('Video') } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/assets': {
      parameters: [projectId],
      post: op({
        id: 'importAsset',
        summary: 'Import an image, video or audio file from a public https URL',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: httpsUrl } },
        responses: { '200': ok('The imported asset (`source: import`).', { type: 'object', required: ['asset'], properties: { asset: ref('Asset') } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/assets/{assetId}': {
      parameters: [projectId, pathParam('assetId', 'Asset id.')],
      delete: op({
        id: 'deleteAsset',
        summary: 'Delete an asset, its media and every clip using it',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        responses: {
          '200': ok('Deleted.', { type: 'object', required: ['deleted', 'clips_removed'], properties: { deleted: { type: 'boolean' }, clips_removed: { type: 'integer', minimum: 0 } } }),
        },
      }),
    },
    '/api/v1/media-studio/projects/{id}/clips': {
      parameters: [projectId],
      post: op({
        id: 'addClip',
        summary: 'Place an asset on a track',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: ref('AddClipRequest'),
        responses: { '200': ok('The new clip.', { type: 'object', required: ['clip'], properties: { clip: ref('Clip') } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/clips/{clipId}': {
      parameters: [projectId, pathParam('clipId', 'Clip id.')],
      patch: op({
        id: 'moveClip',
        summary: 'Move a clip within its track',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: { type: 'object', additionalProperties: false, required: ['idx'], properties: { idx: { type: 'integer', minimum: 0, maximum: 10000, description: 'New position; clamped to the end.' } } },
        responses: { '200': ok('The moved clip.', { type: 'object', required: ['clip'], properties: { clip: ref('Clip') } }) },
      }),
      delete: op({
        id: 'removeClip',
        summary: 'Remove a clip (the asset stays)',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        responses: { '200': ok('Removed.', { type: 'object', required: ['removed'], properties: { removed: { type: 'boolean' } } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/context': {
      parameters: [projectId],
      put: op({
        id: 'updateContext',
        summary: "Replace the project's context",
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: { type: 'object', additionalProperties: false, required: ['context_md'], properties: { context_md: { type: 'string', maxLength: 100000, description: "Markdown the agent reads every turn; '' clears it." } } },
        responses: { '200': ok('The project.', { type: 'object', required: ['project'], properties: { project: projectSchemaRef } }) },
      }),
    },
    '/api/v1/media-studio/projects/{id}/aspect-ratio': {
      parameters: [projectId],
      put: op({
        id: 'setAspectRatio',
        summary: 'Set the format of the project and all its videos',
        tag: 'Editor direct edits',
        scope: 'video-editor:write',
        body: { type: 'object', additionalProperties: false, required: ['aspect_ratio'], properties: { aspect_ratio: { type: 'string', enum: PROJECT_ASPECT_RATIOS } } },
        responses: { '200': ok('The project.', { type: 'object', required: ['project'], properties: { project: projectSchemaRef } }) },
      }),
    },
    '/media/{key}': {
      parameters: [{ name: 'key', in: 'path', required: true, description: 'Storage key, e.g. `jobs/<job_id>/video.mp4` (may contain slashes).', schema: { type: 'string' } }],
      get: {
        operationId: 'getMedia',
        summary: 'Download a media object (single byte ranges supported)',
        description: 'No authentication: result URLs are unguessable capability URLs usable in `<video>` and `<img>`. Honours `Range` (one range), `If-Range`, `If-None-Match` and `If-Modified-Since`.',
        tags: ['Media'],
        security: [],
        parameters: [
          { name: 'Range', in: 'header', required: false, schema: { type: 'string', examples: ['bytes=0-1023'] } },
          { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The whole object.', headers: mediaHeaders, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
          '206': {
            description: 'The requested range.',
            headers: { ...mediaHeaders, 'Content-Range': { description: '`bytes <start>-<end>/<size>`', schema: { type: 'string' } } },
            content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
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
        responses: { '200': { description: 'The headers GET would send for the whole object.' }, '304': { description: 'Not modified.' }, '404': { description: 'No such object.' } },
      },
    },
    '/api/mcp': {
      post: {
        operationId: 'mcp',
        summary: 'MCP endpoint (JSON-RPC 2.0 over streamable HTTP)',
        description:
          'The Model Context Protocol, stateless streamable HTTP: each POST carries one JSON-RPC message or batch (`initialize`, `tools/list`, `tools/call`, ...) and is answered as JSON or as a `text/event-stream`. 17 tools: list_models, job_status, one generation tool and the video_editor_* tools (docs/mcp.md). Same per-key rate limit as /api/v1. GET and DELETE answer 405. The 401 carries `WWW-Authenticate: Bearer resource_metadata=...` pointing at /.well-known/oauth-protected-resource.',
        tags: ['MCP'],
        security: [{ bearerApiKey: [] }, { oauth2: [] }],
        requestBody: { required: true, content: jsonContent({ $ref: '#/components/schemas/JsonRpcMessage' }) },
        responses: {
          '200': {
            description: 'A JSON-RPC response, or a server-sent event stream of progress notifications and the response.',
            content: { ...jsonContent({ type: 'object' }), 'text/event-stream': { schema: { type: 'string' } } },
          },
          '202': { description: 'Accepted (a notification or a response, which has no reply).' },
          '400': {
            description: 'Not JSON, hostile text or nesting (`{"error": ...}`, as /api/v1), or not a JSON-RPC message, or an empty batch (a JSON-RPC error).',
            content: jsonContent({ anyOf: [ref('Error'), { type: 'object', required: ['jsonrpc', 'error'], properties: { jsonrpc: { const: '2.0' }, error: { type: 'object', required: ['code', 'message'] }, id: {} } }] }),
          },
          '401': resp('Unauthorized'),
          '413': resp('PayloadTooLarge'),
          '429': resp('TooManyRequests'),
        },
      },
    },
  },
  webhooks: {
    'job.completed': webhook('job.completed', 'A job finished; `result` holds its media URLs.'),
    'job.failed': webhook('job.failed', 'A job failed after submission; `error` says why; the credits were refunded.'),
    'job.cancelled': webhook('job.cancelled', 'A job was cancelled with DELETE /api/v1/jobs/{id}; the credits were refunded.'),
  },
  components: {
    securitySchemes: {
      bearerApiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'mf_live_<40 base62 characters>', description: 'An API key created in the dashboard: `Authorization: Bearer mf_live_...`.' },
      oauth2: {
        type: 'oauth2',
        description: 'For /api/mcp only: authorization code with PKCE (S256); clients may register dynamically. Metadata at /.well-known/oauth-authorization-server.',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/oauth/token',
            refreshUrl: '/oauth/token',
            scopes: Object.fromEntries(SCOPES.map((s) => [s, `The ${s} scope.`])),
          },
        },
      },
    },
    headers: {
      'X-Request-Id': { description: 'Request id (a valid incoming one is echoed); 5xx bodies repeat it as `request_id`.', required: true, schema: { type: 'string' } },
      'X-RateLimit-Limit': { description: 'Requests allowed per window (60).', schema: { type: 'string', pattern: '^[0-9]+$' } },
      'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'string', pattern: '^[0-9]+$' } },
      'X-RateLimit-Reset': { description: 'When the window ends, Unix time in seconds.', schema: { type: 'string', pattern: '^[0-9]+$' } },
      'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[0-9]+$' } },
      'Retry-After-Required': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
      'Cache-Control-No-Store': { description: 'Never cached.', required: true, schema: { type: 'string', const: 'no-store' } },
      'WWW-Authenticate': { description: '`Bearer realm="api"` (/api/v1) or `Bearer resource_metadata="..."` (/api/mcp).', schema: { type: 'string' } },
    },
    responses: {
      BadRequest: errorResponse(
        'Validation error; the message names the field (`Invalid JSON body`, `prompt is required (non-empty string)`, `unknown field: ...`, `Malformed URL`, `prompt must not contain control characters`, `JSON body nested too deeply (max 64 levels)`).',
        ref('Error'),
      ),
      Unauthorized: {
        description: '`Missing Authorization header` or `Invalid or revoked API key`.',
        headers: { ...requestIdHeader, 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
        content: jsonContent(ref('Error')),
      },
      Forbidden: errorResponse('The key lacks the operation’s scope.', ref('ScopeError')),
      NotFound: errorResponse('Not found (`Job not found`, `Project not found`, `Video not found`, `Asset not found`, `Clip not found`, `Not found`).', ref('Error')),
      Conflict: errorResponse('The job is already completed, failed or cancelled.', ref('Error')),
      PayloadTooLarge: errorResponse('Body larger than 1 MB.', ref('Error')),
      UnsupportedMediaType: errorResponse('Body in a charset other than UTF-8.', ref('Error')),
      InsufficientCredits: errorResponse('Insufficient credits.', ref('InsufficientCreditsError')),
      TooManyRequests: {
        description: 'Over 60 requests in the key’s current minute. A refused request counts as used.',
        headers: { ...requestIdHeader, ...rateLimitHeaders, 'Retry-After': { $ref: '#/components/headers/Retry-After-Required' } },
        content: jsonContent(ref('RateLimitError')),
      },
      InternalError: errorResponse('Internal error; retry with exponential backoff.', ref('ServerError')),
      BadGateway: errorResponse('Upstream provider or agent runtime error; credits already refunded.', ref('ServerError')),
      ServiceUnavailable: {
        description: 'A service the request needs did not answer in time, or the language-model credential is not configured (instruct).',
        headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        content: jsonContent(ref('ServerError')),
      },
      ExportError: errorResponse('An export error (`corrupt_source`, ...).', ref('ExportError')),
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string', description: 'A message safe to show.' } },
        description: 'Every error body; some add fields.',
      },
      ScopeError: {
        allOf: [ref('Error')],
        required: ['required_scope'],
        properties: { required_scope: { type: 'string', enum: SCOPES } },
      },
      InsufficientCreditsError: {
        allOf: [ref('Error')],
        required: ['credits_required', 'credits_remaining'],
        properties: { credits_required: { type: 'integer' }, credits_remaining: { type: 'integer' } },
      },
      RateLimitError: {
        allOf: [ref('Error')],
        required: ['retry_after'],
        properties: { retry_after: { type: 'integer', minimum: 0, description: 'Seconds, as in Retry-After.' } },
      },
      ServerError: {
        allOf: [ref('Error')],
        required: ['request_id'],
        properties: { request_id: { type: 'string', description: 'The X-Request-Id of the response, to match our logs.' } },
      },
      ExportError: {
        type: 'object',
        required: ['error', 'message'],
        properties: { error: { type: 'string', enum: EXPORT_ERROR_CODES }, message: { type: 'string', description: 'Safe to show to an end user; never raw encoder output.' } },
      },
      ExportServerError: { allOf: [ref('ExportError')], required: ['request_id'], properties: { request_id: { type: 'string' } } },
      Model: {
        type: 'object',
        required: ['id', 'type', 'name', 'provider', 'description', 'capabilities', 'submit_endpoint', 'fal_endpoints', 'params', 'credits'],
        properties: {
          id: { type: 'string', examples: ['vidgen-2.0', 'vidgen-2.0-fast', 'imagegen-2'] },
          type: { type: 'string', enum: ['video', 'image'] },
          name: { type: 'string' },
          provider: { type: 'string' },
          description: { type: 'string' },
          capabilities: { type: 'array', items: { type: 'string', examples: ['text-to-video', 'image-to-video', 'text-to-image', 'image-edit'] } },
          submit_endpoint: { type: 'string', description: 'Path of the submit endpoint (an extra of ours).', examples: ['/api/v1/video/vidgen-2/generate'] },
          fal_endpoints: { type: 'object', additionalProperties: { type: 'string' }, description: 'Mode -> upstream endpoint path.' },
          params: { type: 'object', additionalProperties: ref('ParamSpec') },
          credits: { oneOf: [ref('VideoCredits'), ref('ImageCredits')] },
        },
      },
      ParamSpec: {
        type: 'object',
        required: ['type', 'required', 'description'],
        properties: {
          type: { type: 'string', enum: ['string', 'integer', 'boolean', 'string[]'] },
          required: { type: 'boolean' },
          description: { type: 'string' },
          default: { description: '`null` means random (seed).' },
          enum: { type: 'array', items: { type: ['string', 'integer'] } },
          min: { type: 'number' },
          max: { type: 'number' },
          min_length: { type: 'integer' },
          max_length: { type: 'integer' },
          min_items: { type: 'integer' },
          max_items: { type: 'integer' },
          format: { type: 'string', enum: ['https-url'] },
        },
      },
      VideoCredits: {
        type: 'object',
        required: ['base_per_second', 'per_second_by_resolution', 'audio_surcharge_per_second', 'example_5s_with_audio'],
        properties: {
          base_per_second: { type: 'integer' },
          per_second_by_resolution: { type: 'object', required: ['480p', '720p'], properties: { '480p': { type: 'integer' }, '720p': { type: 'integer' } } },
          audio_surcharge_per_second: { type: 'integer' },
          example_5s_with_audio: { type: 'integer' },
        },
      },
      ImageCredits: { type: 'object', required: ['per_image', 'example_1_image'], properties: { per_image: { type: 'integer' }, example_1_image: { type: 'integer' } } },
      Account: {
        type: 'object',
        required: ['credits_remaining', 'credits_used_this_period', 'credits_total_this_period', 'api_key'],
        properties: {
          credits_remaining: { type: 'integer' },
          credits_used_this_period: { type: 'integer', description: 'Charged this calendar month (UTC), minus refunded charges.' },
          credits_total_this_period: { type: 'integer', description: 'credits_remaining + credits_used_this_period.' },
          api_key: { type: 'object', required: ['id', 'scopes'], properties: { id: { type: 'integer' }, scopes: { type: 'array', items: { type: 'string' } } } },
        },
      },
      VideoGenerateRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['prompt'],
        description: 'Strict types; an unknown field is a 400 naming it; `null` for an optional field means not given.',
        properties: {
          prompt: { type: 'string', minLength: 1, maxLength: 4000, description: 'Counted in Unicode code points.' },
          image_url: { ...httpsUrl, type: ['string', 'null'], description: 'Reference image: makes the request image-to-video. Not with fast: true.' },
          fast: { type: ['boolean', 'null'], default: false, description: 'The fast variant (vidgen-2.0-fast), text-to-video only.' },
          duration_seconds: { type: ['integer', 'null'], enum: [...VIDEO_DURATIONS, null], default: 5 },
          aspect_ratio: { type: ['string', 'null'], enum: [...VIDEO_ASPECT_RATIOS, null], default: '16:9' },
          resolution: { type: ['string', 'null'], enum: ['480p', '720p', null], default: '720p' },
          generate_audio: { type: ['boolean', 'null'], default: true },
          seed: { type: ['integer', 'null'], minimum: 0, maximum: 4294967295, description: 'Random when omitted.' },
        },
      },
      ImageGenerateRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['prompt'],
        properties: {
          prompt: { type: 'string', minLength: 1, maxLength: 4000 },
          image_urls: { type: ['array', 'null'], items: httpsUrl, maxItems: 9, default: [], description: 'Reference images; when non-empty the request is an edit.' },
          num_images: { type: ['integer', 'null'], minimum: 1, maximum: 4, default: 1 },
          aspect_ratio: { type: ['string', 'null'], enum: [...IMAGE_ASPECT_RATIOS, null], default: '1:1' },
          seed: { type: ['integer', 'null'], minimum: 0, maximum: 4294967295 },
        },
      },
      GenerationAccepted: {
        type: 'object',
        required: ['job_id', 'status', 'model', 'credits_consumed', 'credits_remaining', 'poll_url'],
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', const: 'processing' },
          model: { type: 'string', description: 'The model id.' },
          type: { type: 'string', enum: ['video', 'image'] },
          credits_consumed: { type: 'integer' },
          credits_remaining: { type: 'integer' },
          poll_url: { type: 'string', description: '`/api/v1/jobs/<job_id>`, relative to the base URL.' },
        },
      },
      JobResult: {
        oneOf: [
          { type: 'object', required: ['video'], properties: { video: { type: 'string', format: 'uri' } } },
          { type: 'object', required: ['images'], properties: { images: { type: 'array', items: { type: 'string', format: 'uri' } } } },
          { type: 'null' },
        ],
      },
      Job: {
        type: 'object',
        required: ['job_id', 'status', 'model', 'type', 'credits_consumed', 'created_at', 'completed_at', 'result', 'error'],
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', enum: ['processing', 'completed', 'failed', 'cancelled'] },
          model: { type: 'string', description: 'The model display name.' },
          type: { type: 'string', enum: ['video', 'image'] },
          credits_consumed: { type: 'integer' },
          created_at: timestamp,
          completed_at: { ...timestamp, type: ['string', 'null'], description: 'null while processing.' },
          result: ref('JobResult'),
          error: { type: ['string', 'null'], description: 'Why it failed, safe to show.' },
        },
      },
      CancelJobReply: {
        type: 'object',
        required: ['job_id', 'status', 'refunded_credits'],
        properties: { job_id: { type: 'string' }, status: { type: 'string', const: 'cancelled' }, refunded_credits: { type: 'integer' } },
      },
      CreateProjectRequest: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: ['string', 'null'], minLength: 1, maxLength: 120, default: 'Untitled project', description: 'Not blank.' },
          description: { type: ['string', 'null'], maxLength: 1000, description: 'Stored, not shown in the project record.' },
          aspect_ratio: { type: ['string', 'null'], enum: [...PROJECT_ASPECT_RATIOS, null], default: '9:16' },
        },
      },
      NameRequest: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 120, description: 'Not blank.' } } },
      InstructRequest: {
        type: 'object',
        additionalProperties: false,
        description: 'An instruction or at least one image URL is required (a blank instruction counts as none).',
        properties: {
          instruction: { type: ['string', 'null'], maxLength: 8000, default: '', description: 'A plain-language request or the reply to the agent’s question.' },
          image_urls: { type: ['array', 'null'], items: httpsUrl, maxItems: 10, default: [] },
          video_id: { type: ['string', 'null'], description: 'Target video; defaults to the project’s default video.' },
        },
      },
      ExportRequest: {
        type: 'object',
        additionalProperties: false,
        properties: {
          video_id: { type: ['string', 'null'], description: 'Defaults to the project’s default video.' },
          fit: { type: ['string', 'null'], enum: ['fit', 'fill', null], default: 'fit', description: 'fit: letterbox or pillarbox; fill: scale and crop.' },
        },
      },
      AddClipRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['track', 'asset_id'],
        properties: {
          video_id: { type: ['string', 'null'], description: 'Defaults to the default video.' },
          track: { type: 'string', enum: TRACKS, description: 'Pictures on video; sound on voice, sfx and music.' },
          asset_id: { type: 'string', minLength: 1 },
          idx: { type: ['integer', 'null'], minimum: 0, description: 'Position; absent or past the end appends.' },
          duration_sec: { type: ['number', 'null'], minimum: 0.1, maximum: 600, description: 'How long a still (or a cut of a longer source) plays.' },
          start_sec: { type: ['number', 'null'], minimum: 0, maximum: 3600, description: 'When an audio clip starts.' },
          volume: { type: ['number', 'null'], minimum: 0, maximum: 2, default: 1 },
        },
      },
      Project: {
        type: 'object',
        required: ['id', 'name', 'aspect_ratio', 'context_md', 'created_at', 'updated_at'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, aspect_ratio: { type: 'string', enum: PROJECT_ASPECT_RATIOS }, context_md: { type: 'string' }, created_at: timestamp, updated_at: timestamp },
      },
      ProjectSummary: {
        type: 'object',
        required: ['id', 'name', 'aspect_ratio', 'updated_at'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, aspect_ratio: { type: 'string', enum: PROJECT_ASPECT_RATIOS }, updated_at: timestamp },
      },
      Video: {
        type: 'object',
        required: ['id', 'name', 'aspect_ratio', 'created_at'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, aspect_ratio: { type: 'string', enum: PROJECT_ASPECT_RATIOS }, created_at: timestamp },
      },
      Asset: {
        type: 'object',
        required: ['id', 'kind', 'source', 'url', 'metadata'],
        properties: {
          id: { type: 'string' },
          kind: { type: 'string', examples: ['image', 'video', 'audio', 'export'] },
          source: { type: 'string', examples: ['generated', 'upload', 'import', 'tts', 'music', 'sfx', 'export'] },
          url: { type: 'string', format: 'uri' },
          metadata: { type: 'object', description: 'prompt, model, job_id, duration_sec, width, height, has_audio, source_url, ...' },
        },
      },
      Clip: {
        type: 'object',
        required: ['id', 'video_id', 'track', 'idx', 'asset_id'],
        properties: {
          id: { type: 'string' },
          video_id: { type: 'string' },
          track: { type: 'string', enum: TRACKS },
          idx: { type: 'integer', minimum: 0 },
          asset_id: { type: 'string' },
          duration_sec: { type: ['number', 'null'], description: 'null: the asset’s own length (3 s for stills).' },
          start_sec: { type: ['number', 'null'], description: 'null: with the video clip of the same idx.' },
          volume: { type: 'number', minimum: 0, maximum: 2 },
        },
      },
      ProjectState: {
        type: 'object',
        required: ['project', 'videos', 'assets', 'clips'],
        properties: {
          project: {
            type: 'object',
            required: ['id', 'name', 'aspect_ratio', 'context_md'],
            properties: { id: { type: 'string' }, name: { type: 'string' }, aspect_ratio: { type: 'string', enum: PROJECT_ASPECT_RATIOS }, context_md: { type: 'string' } },
          },
          videos: { type: 'array', items: ref('Video') },
          assets: { type: 'array', items: ref('Asset') },
          clips: { type: 'array', items: ref('Clip') },
        },
      },
      AgentEvent: {
        type: 'object',
        required: ['type', 'at'],
        properties: { type: { type: 'string', examples: ['step', 'tool_call', 'tool_result', 'tool_error', 'media_generation', 'message'] }, at: timestamp },
      },
      InstructReply: {
        type: 'object',
        required: ['assistant_text', 'assets_created', 'clips_created', 'context_appended', 'aspect_ratio_changed', 'media_gen_done', 'agent_events'],
        properties: {
          assistant_text: { type: 'string' },
          assets_created: { type: 'array', items: ref('Asset') },
          clips_created: { type: 'array', items: ref('Clip') },
          context_appended: { type: 'boolean' },
          aspect_ratio_changed: { type: ['string', 'null'], enum: [...PROJECT_ASPECT_RATIOS, null] },
          media_gen_done: { type: 'boolean' },
          agent_events: { type: 'array', items: ref('AgentEvent') },
        },
      },
      ExportReply: {
        type: 'object',
        required: ['asset_id', 'video_url', 'duration_sec', 'video_clip_count', 'audio_overlay_count'],
        properties: {
          asset_id: { type: 'string' },
          video_url: { type: 'string', format: 'uri', description: 'Permanent, service-hosted, downloadable and embeddable.' },
          duration_sec: { type: 'number' },
          video_clip_count: { type: 'integer' },
          audio_overlay_count: { type: 'integer' },
        },
      },
      JsonRpcMessage: {
        description: 'A JSON-RPC 2.0 request, notification or response, or a batch of them.',
        oneOf: [
          { type: 'object', required: ['jsonrpc'], properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: { type: 'string' }, params: { type: 'object' } } },
          { type: 'array', items: { type: 'object' } },
        ],
      },
      WebhookPayload: {
        type: 'object',
        required: ['job_id', 'status', 'model', 'type', 'credits_consumed', 'created_at', 'completed_at', 'result', 'error'],
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', enum: ['completed', 'failed', 'cancelled'] },
          model: { type: 'string', description: 'The upstream endpoint path, e.g. `fal-ai/vidgen-2/text-to-video`.' },
          type: { type: 'string', enum: ['video', 'image'] },
          credits_consumed: { type: 'integer' },
          created_at: timestamp,
          completed_at: { ...timestamp, type: ['string', 'null'] },
          result: ref('JobResult'),
          error: { type: ['string', 'null'] },
        },
      },
    },
  },
});

/** A JSON error response with the request id header. */
function errorResponse(description: string, schema: Json): Json {
  return { description, headers: { ...requestIdHeader }, content: jsonContent(schema) };
}

/** One webhook: a signed POST of the job to the key's URL. */
function webhook(event: string, description: string): Json {
  const header = (name: string, desc: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'header', required: true, description: desc, schema });
  return {
    post: {
      summary: event,
      description: `${description} Retried after 30 s, 2 min and 10 min on a non-2xx answer (408 and 429 included; other 4xx are not retried). Verify the signature: hex HMAC-SHA256 of \`<timestamp>.<raw body>\` keyed with the signing secret, compared in constant time (docs/webhooks.md).`,
      security: [],
      parameters: [
        header('User-Agent', '`Mediaforge-Webhooks/1.0`.'),
        header('X-Service-Event', 'The event.', { type: 'string', const: event }),
        header('X-Service-Timestamp', 'When this attempt was signed, Unix seconds.', { type: 'string', pattern: '^[0-9]+$' }),
        header('X-Service-Signature', '`t=<timestamp>,v1=<hex HMAC-SHA256>`.', { type: 'string', pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$' }),
        header('X-Service-Event-Id', 'The same for every attempt of one event: drop duplicates by it.'),
        header('X-Service-Delivery-Attempt', '1 for the first attempt, then 2, 3, 4.', { type: 'string', pattern: '^[1-4]$' }),
      ],
      requestBody: { required: true, content: jsonContent(ref('WebhookPayload')) },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery.' },
        '401': { description: 'Signature mismatch (not retried).' },
      },
    },
  };
}
