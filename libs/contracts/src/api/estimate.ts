import Joi from 'joi';
import { named, says } from '../schema/rules';
import { imageRequest, videoRequest } from './generation';
import { IMAGE_MODEL_IDS, MODEL_IDS, VIDEO_MODEL_IDS } from './model-ids';

/**
 * A schema extended from a named one, under its own type name but without an id: inline in the
 * OpenAPI body like the submit bodies (code generators then keep defaulted fields optional).
 */
const renamed = (schema: Joi.ObjectSchema, className: string): Joi.ObjectSchema =>
  schema.id(undefined).meta({ className });

/**
 * POST /api/v1/estimate: what a submit would cost, charging nothing. The body is a submit's body
 * plus `model`; its fields are validated exactly as the submit's (same messages).
 */

export const ESTIMATE_MODEL_MESSAGE = `model must be one of ${MODEL_IDS.join(', ')}`;

const modelField = (ids: readonly string[]) =>
  says(Joi.string().valid(...ids), ESTIMATE_MODEL_MESSAGE, { 'any.required': 'model is required' })
    .required()
    .description('The catalog model to price.');

export const videoEstimateRequest = renamed(
  videoRequest.keys({ model: modelField(VIDEO_MODEL_IDS) }),
  'VideoEstimateRequest',
).description('A video submit body plus `model`. For vidgen-2.0-fast, `fast` may be left out (it is true).');
export const imageEstimateRequest = renamed(
  imageRequest.keys({ model: modelField(IMAGE_MODEL_IDS) }),
  'ImageEstimateRequest',
).description('An image submit body plus `model`.');
export const estimateRequest = named(Joi.alternatives(videoEstimateRequest, imageEstimateRequest), 'EstimateRequest');

export const estimateReply = named(
  Joi.object({
    model: Joi.string()
      .valid(...MODEL_IDS)
      .required(),
    credits: Joi.number().integer().min(0).required().description('What the submit would charge.'),
    credits_remaining: Joi.number().integer().required().description('The current balance (as GET /api/v1/account).'),
    affordable: Joi.boolean()
      .required()
      .description(
        "Whether the balance covers it, and the key's monthly spend limit (if it has one) leaves room for it.",
      ),
  }),
  'EstimateReply',
);
