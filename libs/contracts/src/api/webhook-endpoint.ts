import Joi from 'joi';
import { named, says } from '../schema/rules';
import { ROTATION_OVERLAP_HOURS, SIGNATURE_SCHEMES, WEBHOOK_EVENT_TYPES } from '../webhooks';

/**
 * The calling key's webhook endpoint over REST (/api/v1/webhook): set, read, delete, roll its
 * secret. The dispatcher's RPC shapes are in ../webhooks.ts; the gateway maps them to these.
 */

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');

/** An event type the filter does not know is a 400 naming it. */
const eventType = Joi.string()
  .valid(...WEBHOOK_EVENT_TYPES)
  .error((reports) => {
    const first = Array.isArray(reports) ? reports[0] : undefined;
    const value: unknown = first?.value;
    return new Error(
      typeof value === 'string'
        ? `unknown event type ${value}: events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}`
        : `events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    );
  });

export const putWebhookBody = named(
  Joi.object({
    url: says(Joi.string().max(2048).required(), 'url is required and must be a string', {
      'string.max': 'url must be at most 2048 characters',
    }).description('The receiver: https, a public address, no credentials, an allowed port (the dashboard’s rules).'),
    events: says(
      Joi.array().items(eventType).min(1).unique(),
      `events must be a non-empty list of distinct types among ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    ).description(
      `The job events sent (${WEBHOOK_EVENT_TYPES.join(', ')}); all three for a new endpoint, unchanged when not given.`,
    ),
    signature_scheme: says(
      Joi.string().valid(...SIGNATURE_SCHEMES),
      `signature_scheme must be one of ${SIGNATURE_SCHEMES.join(', ')}`,
    ).description(
      '`stripe` (default: `X-Service-Signature: t=..,v1=..`, verified by Stripe’s libraries) or `standard` (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). Changing it generates a new secret, returned once.',
    ),
  }),
  'PutWebhookBody',
);

const endpointKeys = {
  url: Joi.string().required(),
  events: Joi.array()
    .items(Joi.string().valid(...WEBHOOK_EVENT_TYPES))
    .required(),
  signature_scheme: Joi.string()
    .valid(...SIGNATURE_SCHEMES)
    .required(),
  created_at: timestamp.required(),
  updated_at: timestamp.required(),
};

/** The answer to PUT: the secret only when one was generated (201 on creation, or a change of scheme). */
export const webhookEndpointSaved = named(
  Joi.object({
    ...endpointKeys,
    secret: Joi.string().description('The signing secret, shown this once: on creation, or when the scheme changed.'),
  }),
  'WebhookEndpointSaved',
);

export const webhookEndpoint = named(
  Joi.object({
    ...endpointKeys,
    failing_since: timestamp
      .allow(null)
      .required()
      .description('First failure of the current unbroken run of failed deliveries; null after a 2xx.'),
    disabled_at: timestamp
      .allow(null)
      .required()
      .description('When the endpoint was disabled for failing without a break (save it again to enable it).'),
  }),
  'WebhookEndpoint',
);

export const webhookEndpointDeleted = named(
  Joi.object({ deleted: Joi.boolean().valid(true).required() }),
  'WebhookEndpointDeleted',
);

export const rotateWebhookSecretBody = named(
  Joi.object({
    overlap_hours: says(
      Joi.number().integer().min(ROTATION_OVERLAP_HOURS.min).max(ROTATION_OVERLAP_HOURS.max),
      `overlap_hours must be an integer between ${ROTATION_OVERLAP_HOURS.min} and ${ROTATION_OVERLAP_HOURS.max}`,
    ).description(
      `How long the previous secret keeps signing beside the new one (default ${ROTATION_OVERLAP_HOURS.default}); 0 stops it at once.`,
    ),
  }),
  'RotateWebhookSecretBody',
);

export const webhookSecretRotated = named(
  Joi.object({
    secret: Joi.string().required().description('The new signing secret, shown this once.'),
    previous_secret_expires_at: timestamp
      .allow(null)
      .required()
      .description(
        'Until then every delivery carries a signature by the previous secret too; null with `overlap_hours: 0`.',
      ),
  }),
  'WebhookSecretRotated',
);
