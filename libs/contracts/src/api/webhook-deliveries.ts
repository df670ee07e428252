import Joi from 'joi';
import { named, says, storableTimestamp, TIMESTAMP_RANGE } from '../schema/rules';
import { deliveryDetailKeys, DELIVERY_STATUSES } from '../webhooks';

/**
 * The public webhook delivery tools under /api/v1/webhook (per API key: the caller's key's own
 * deliveries). The dispatcher's RPC shapes are in ../webhooks.ts; the gateway maps them to these.
 */

/** GET /api/v1/webhook/deliveries: 1-100 attempts a page, 20 when not said (as GET /api/v1/jobs). */
export const DELIVERIES_PAGE_DEFAULT = 20;
export const DELIVERIES_PAGE_MAX = 100;

/** The job events `POST /api/v1/webhook/test` can send a sample of. */
export const WEBHOOK_TEST_TYPES = ['job.completed', 'job.failed', 'job.cancelled'] as const;
export type WebhookTestType = (typeof WEBHOOK_TEST_TYPES)[number];

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');

export const listWebhookDeliveriesQuery = named(
  Joi.object({
    status: says(
      Joi.string().valid(...DELIVERY_STATUSES),
      `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
    ).description('`succeeded` (answered 2xx) or `failed` (any other answer, or none).'),
    limit: says(
      Joi.number().integer().min(1).max(DELIVERIES_PAGE_MAX).default(DELIVERIES_PAGE_DEFAULT),
      `limit must be an integer between 1 and ${DELIVERIES_PAGE_MAX}`,
    ).description(`Attempts per page, 1-${DELIVERIES_PAGE_MAX}.`),
    starting_after: says(
      Joi.number().integer().min(1),
      'starting_after must be a delivery id (a positive integer)',
    ).description('A delivery `id`: the attempts older than it.'),
    'created[gte]': says(storableTimestamp(), 'created[gte] must be an ISO 8601 timestamp').description(
      'Only those created at or after this instant (ISO 8601).',
    ),
    'created[lte]': says(storableTimestamp(), 'created[lte] must be an ISO 8601 timestamp').description(
      'Only those created at or before this instant (ISO 8601).',
    ),
  }),
  'ListWebhookDeliveriesQuery',
);

/** One delivery attempt of a webhook event to the key's URL. */
export const webhookDelivery = named(
  Joi.object({
    id: Joi.number().integer().required().description('The attempt id.'),
    event_id: Joi.string()
      .required()
      .description(
        "The `X-Service-Event-Id`: the event log's id (`evt_...`, as in GET /api/v1/events), the same for every attempt of one event.",
      ),
    event_type: Joi.string()
      .required()
      .description('The `X-Service-Event`: `job.completed`, `job.failed`, `job.cancelled` (or `webhook.test`).'),
    job_id: Joi.string().allow('').required().description('The job of the event; "" for a `webhook.test` ping.'),
    attempt: Joi.number().integer().required().description('The `X-Service-Delivery-Attempt` sent.'),
    status_code: Joi.number().integer().allow(null).required().description('The answer status; null for no answer.'),
    succeeded: Joi.boolean().required().description('Answered with a 2xx.'),
    error: Joi.string()
      .allow(null)
      .required()
      .description('Why there was no answer (`timeout`, `connection refused`, ...); null when there was one.'),
    duration_ms: Joi.number().integer().required(),
    created_at: timestamp.required(),
    test: Joi.boolean().required().description('A test event (`X-Service-Test: true`), not a real one.'),
  }),
  'WebhookDelivery',
);

export const webhookDeliveryDetail = named(webhookDelivery.keys(deliveryDetailKeys), 'WebhookDeliveryDetail');

export const webhookDeliveriesPage = named(
  Joi.object({
    deliveries: Joi.array().items(webhookDelivery).required().description('Newest first.'),
    has_more: Joi.boolean()
      .required()
      .description('Older attempts match: ask again with `starting_after` = the last `id`.'),
  }),
  'WebhookDeliveriesPage',
);

export const resendAccepted = named(
  Joi.object({ delivery_id: Joi.number().integer().required().description('The id of the new attempt.') }),
  'ResendAccepted',
);

export const recoverBody = named(
  Joi.object({
    since: says(storableTimestamp().required(), 'since must be an ISO 8601 timestamp', {
      'any.required': 'since is required',
      'date.range': `since must be between ${TIMESTAMP_RANGE.min.slice(0, 10)} and ${TIMESTAMP_RANGE.max.slice(0, 10)}`,
    }).description(
      'Events whose attempts since then ended in failure, and that were not sent again since then, are sent again, once.',
    ),
  }),
  'RecoverBody',
);

export const recoverAccepted = named(
  Joi.object({ queued: Joi.number().integer().min(0).required().description('Events queued to be sent again.') }),
  'RecoverAccepted',
);

export const webhookTestBody = named(
  Joi.object({
    type: says(
      Joi.string()
        .valid(...WEBHOOK_TEST_TYPES)
        .required(),
      `type must be one of ${WEBHOOK_TEST_TYPES.join(', ')}`,
    ).description('The event to send a sample of.'),
  }),
  'WebhookTestBody',
);

export const webhookTestReply = named(
  Joi.object({ delivery: webhookDelivery.required().description('The attempt: sent once, never retried.') }),
  'WebhookTestReply',
);
