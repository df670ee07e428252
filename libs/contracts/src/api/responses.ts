import Joi from 'joi';
import { exportError } from '../exports';
import { jobView, submitJobReply } from '../jobs';
import { named } from '../schema/rules';
import { VIDEO_RESOLUTIONS } from './generation';
import { MODEL_IDS } from './model-ids';

/**
 * The public responses of /api/v1 that no service message already defines: error bodies, the
 * model catalog entry, the account, and the envelopes around records. The OpenAPI document's
 * schemas, the SDK's types and the gateway's response types come from these.
 */

export const SCOPES = [
  'models:read',
  'video:write',
  'image:write',
  'jobs:read',
  'video-editor:write',
  'video-editor:read',
] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPE: Scope = 'models:read';

/** What each scope lets a key do, as the dashboard's key form and the OAuth consent page say it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'models:read': 'List the models and their prices. Always on.',
  'video:write': 'Generate videos (spends credits).',
  'image:write': 'Generate and edit images (spends credits).',
  'jobs:read': 'List your jobs (GET /api/v1/jobs). Reading one job by its id needs no scope.',
  'video-editor:write': 'Create, instruct and export video-editor projects (instructions spend credits).',
  'video-editor:read': 'List and read video-editor projects.',
};

/** What a new key starts with in the dashboard: what a typical integration needs (everything but the editor). */
export const TYPICAL_KEY_SCOPES: readonly Scope[] = ['models:read', 'video:write', 'image:write', 'jobs:read'];

const message = Joi.string().required().description('A message safe to show.');

/** Every error body; some add fields. */
export const errorBody = named(
  Joi.object({ error: message }).description('Every error body; some add fields.'),
  'Error',
);
export const scopeError = named(
  Joi.object({
    error: message,
    required_scope: Joi.string()
      .valid(...SCOPES)
      .required(),
  }),
  'ScopeError',
);
export const insufficientCreditsError = named(
  Joi.object({
    error: message,
    credits_required: Joi.number().integer().required(),
    credits_remaining: Joi.number().integer().required(),
  }),
  'InsufficientCreditsError',
);
export const rateLimitError = named(
  Joi.object({
    error: message,
    retry_after: Joi.number().integer().min(0).required().description('Seconds, as in Retry-After.'),
  }),
  'RateLimitError',
);
export const serverError = named(
  Joi.object({
    error: message,
    request_id: Joi.string()
      .required()
      .description('The X-Request-Id of the response: quote it when reporting a problem.'),
  }),
  'ServerError',
);
export { exportError };
export const exportServerError = named(exportError.keys({ request_id: Joi.string().required() }), 'ExportServerError');

/** How GET /models shows a model's accepted parameter (read off the submit schemas by the catalog). */
export const paramSpec = named(
  Joi.object({
    type: Joi.string().valid('string', 'integer', 'number', 'boolean', 'string[]').required(),
    required: Joi.boolean().required(),
    description: Joi.string().allow('').required(),
    default: Joi.alternatives(Joi.string(), Joi.number(), Joi.boolean(), Joi.array().items(Joi.string()))
      .allow(null)
      .description('`null` means random (seed).'),
    enum: Joi.array().items(Joi.alternatives(Joi.string(), Joi.number())),
    min: Joi.number(),
    max: Joi.number(),
    min_length: Joi.number().integer(),
    max_length: Joi.number().integer(),
    min_items: Joi.number().integer(),
    max_items: Joi.number().integer(),
    format: Joi.string().valid('https-url'),
  }),
  'ParamSpec',
);

export const videoCredits = named(
  Joi.object({
    base_per_second: Joi.number().integer().required(),
    per_second_by_resolution: Joi.object(
      Object.fromEntries(VIDEO_RESOLUTIONS.map((r) => [r, Joi.number().integer().required()])),
    ).required(),
    audio_surcharge_per_second: Joi.number().integer().required(),
    example_5s_with_audio: Joi.number().integer().required(),
  }),
  'VideoCredits',
);
export const imageCredits = named(
  Joi.object({ per_image: Joi.number().integer().required(), example_1_image: Joi.number().integer().required() }),
  'ImageCredits',
);

/** A catalog entry without the deployment's upstream map (the catalog's own record). */
export const modelSpec = named(
  Joi.object({
    id: Joi.string()
      .valid(...MODEL_IDS)
      .required(),
    type: Joi.string().valid('video', 'image').required(),
    name: Joi.string().required(),
    provider: Joi.string().required(),
    description: Joi.string().required(),
    capabilities: Joi.array()
      .items(Joi.string())
      .required()
      .description('text-to-video, image-to-video, text-to-image, image-edit'),
    submit_endpoint: Joi.string().required().description('Path of the endpoint that submits a job for this model.'),
    params: Joi.object().pattern(/.*/, paramSpec).required(),
    credits: Joi.alternatives(videoCredits, imageCredits).required(),
  }),
  'ModelSpec',
);
/** GET /api/v1/models: one entry. */
export const model = named(
  modelSpec.keys({
    fal_endpoints: Joi.object().pattern(/.*/, Joi.string()).required().description('Mode -> upstream endpoint path.'),
  }),
  'Model',
);
export const modelList = named(Joi.object({ models: Joi.array().items(model).required() }), 'ModelList');

/** GET /api/v1/account */
export const account = named(
  Joi.object({
    credits_remaining: Joi.number().integer().required(),
    credits_used_this_period: Joi.number()
      .integer()
      .required()
      .description('Charged this calendar month (UTC), minus refunded charges.'),
    credits_total_this_period: Joi.number()
      .integer()
      .required()
      .description('credits_remaining + credits_used_this_period.'),
    api_key: Joi.object({
      id: Joi.number().integer().required(),
      scopes: Joi.array().items(Joi.string()).required(),
    }).required(),
  }),
  'Account',
);

/** 202 of both generate endpoints. */
export const generationAccepted = named(
  submitJobReply.keys({
    poll_url: Joi.string().required().description('`/api/v1/jobs/<job_id>`, relative to the base URL.'),
  }),
  'GenerationAccepted',
);

/** GET /api/v1/jobs */
export const jobsPage = named(
  Joi.object({
    jobs: Joi.array().items(jobView).required(),
    has_more: Joi.boolean().required().description('Older jobs match: ask again with `starting_after`.'),
  }),
  'JobsPage',
);

/** POST /api/mcp: a JSON-RPC 2.0 request, notification or response, or a batch of them. */
export const jsonRpcMessage = named(
  Joi.alternatives(
    Joi.object({
      jsonrpc: Joi.string().valid('2.0').required(),
      id: Joi.alternatives(Joi.string(), Joi.number().integer()).allow(null),
      method: Joi.string(),
      params: Joi.object().unknown(true),
    }).unknown(true),
    Joi.array().items(Joi.object().unknown(true)),
  ).description('A JSON-RPC 2.0 request, notification or response, or a batch of them.'),
  'JsonRpcMessage',
);
