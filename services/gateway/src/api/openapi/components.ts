import {
  account,
  assetReply,
  assetView,
  clipReply,
  deleteAssetReply,
  projectListReply,
  projectReply,
  removeClipReply,
  videoReply,
  cancelJobReply,
  clipView,
  errorBody,
  exportError,
  exportReply,
  exportAccepted,
  exportStatus,
  exportList,
  exportServerError,
  estimateReply,
  generationAccepted,
  insufficientCreditsError,
  instructReply,
  jobsPage,
  jobView,
  eventsPage,
  logEvent,
  triggerEventReply,
  jsonRpcMessage,
  modelList,
  projectStateReply,
  projectSummary,
  projectView,
  rateLimitError,
  scopeError,
  SCOPES,
  serverError,
  toJsonSchema,
  videoView,
  webhookPayload,
  webhookDeliveriesPage,
  webhookDeliveryDetail,
  resendAccepted,
  recoverAccepted,
  webhookTestReply,
  webhookEndpoint,
  webhookEndpointDeleted,
  webhookEndpointSaved,
  webhookSecretRotated,
  usageReport,
  ledgerReply,
  type JsonSchema,
} from '@mf/contracts';
import {
  errorResponse,
  inlineDefinitions,
  jsonContent,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  type Json,
} from '../../operations/openapi-helpers';

/** The response and record schemas the document names, each derived from its joi definition. */
const NAMED = [
  errorBody,
  scopeError,
  insufficientCreditsError,
  rateLimitError,
  serverError,
  exportError,
  exportServerError,
  modelList,
  account,
  generationAccepted,
  estimateReply,
  jobView,
  jobsPage,
  eventsPage,
  logEvent,
  triggerEventReply,
  cancelJobReply,
  projectView,
  projectSummary,
  videoView,
  assetView,
  clipView,
  projectStateReply,
  instructReply,
  exportReply,
  exportAccepted,
  exportStatus,
  exportList,
  projectReply,
  projectListReply,
  videoReply,
  assetReply,
  deleteAssetReply,
  clipReply,
  removeClipReply,
  jsonRpcMessage,
  webhookPayload,
  webhookDeliveriesPage,
  webhookDeliveryDetail,
  resendAccepted,
  recoverAccepted,
  webhookTestReply,
  webhookEndpoint,
  webhookEndpointSaved,
  webhookEndpointDeleted,
  webhookSecretRotated,
  usageReport,
  ledgerReply,
];

/** components.schemas: every named schema and every named part of them (and of the inline request bodies). */
export function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const schema of NAMED) toJsonSchema(schema, schemas);
  return { ...inlineDefinitions, ...schemas };
}

export const securitySchemes: Json = {
  bearerApiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'mf_live_<40 base62 characters>',
    description: 'An API key created in the dashboard: `Authorization: Bearer mf_live_...`.',
  },
  oauth2: {
    type: 'oauth2',
    description:
      'For /api/mcp only: authorization code with PKCE (S256); clients may register dynamically. Metadata at /.well-known/oauth-authorization-server.',
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth/authorize',
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: Object.fromEntries(SCOPES.map((s) => [s, `The ${s} scope.`])),
      },
    },
  },
};

const digits = { type: 'string', pattern: '^[0-9]+$' };

export const headers: Json = {
  'X-Request-Id': {
    description: 'Request id (a valid incoming one is echoed); 5xx bodies repeat it as `request_id`.',
    required: true,
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per window (60).', schema: digits },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: digits },
  'X-RateLimit-Reset': { description: 'When the window ends, Unix time in seconds.', schema: digits },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: digits },
  'Retry-After-Required': { description: 'Seconds to wait before retrying.', required: true, schema: digits },
  'Cache-Control-No-Store': {
    description: 'Never cached.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
  'WWW-Authenticate': {
    description: '`Bearer realm="api"` (/api/v1) or `Bearer resource_metadata="..."` (/api/mcp).',
    schema: { type: 'string' },
  },
};

export const responses: Json = {
  BadRequest: errorResponse(
    'Validation error; the message names the field (`Invalid JSON body`, `Request body must be a JSON object`, `prompt is required (non-empty string)`, `unknown field: ...`, `Malformed URL`, `prompt must not contain control characters`, `JSON body nested too deeply (max 64 levels)`).',
    ref('Error'),
  ),
  Unauthorized: {
    description: '`Missing Authorization header` or `Invalid or revoked API key`.',
    headers: { ...requestIdHeader, 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
    content: jsonContent(ref('Error')),
  },
  Forbidden: errorResponse('The key lacks the operation’s scope.', ref('ScopeError')),
  NotFound: errorResponse(
    'Not found (`Job not found`, `Project not found`, `Video not found`, `Asset not found`, `Clip not found`, `Not found`).',
    ref('Error'),
  ),
  Conflict: errorResponse('The job is already completed, failed or cancelled.', ref('Error')),
  PayloadTooLarge: errorResponse('Body larger than 1 MB.', ref('Error')),
  UnsupportedMediaType: errorResponse(
    'A body whose Content-Type is not application/json (or a +json type), or in a charset other than UTF-8.',
    ref('Error'),
  ),
  InsufficientCredits: errorResponse('Insufficient credits.', ref('InsufficientCreditsError')),
  TooManyRequests: {
    description: 'Over 60 requests in the key’s current minute. A refused request counts as used.',
    headers: {
      ...requestIdHeader,
      ...rateLimitHeaders,
      'Retry-After': { $ref: '#/components/headers/Retry-After-Required' },
    },
    content: jsonContent(ref('RateLimitError')),
  },
  InternalError: errorResponse('Internal error; retry with exponential backoff.', ref('ServerError')),
  BadGateway: errorResponse('Upstream provider or agent runtime error; credits already refunded.', ref('ServerError')),
  ServiceUnavailable: {
    description:
      'A service the request needs did not answer in time, or the language-model credential is not configured (instruct).',
    headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    content: jsonContent(ref('ServerError')),
  },
  ExportError: errorResponse('An export error (`corrupt_source`, ...).', ref('ExportError')),
};
