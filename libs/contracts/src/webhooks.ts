import Joi from 'joi';
import type * as T from './generated/types';
import { jobEventSchema, type EventDef } from './job-events';
import { JOB_SOURCES, jobResult } from './jobs';
import { QUEUES, ROUTING_KEYS } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';
import { named, storableTimestamp } from './schema/rules';

/**
 * One webhook endpoint per API key (contract section 2, "Webhook configuration") and its delivery
 * log. Types: generated/types.ts, from these schemas.
 */

/** The events a user can send to test a receiver: the ping, or a sample of the event a real handler acts on. */
export const TEST_EVENTS = ['webhook.test', 'job.completed', 'job.failed', 'job.cancelled'] as const;
export type TestEventName = (typeof TEST_EVENTS)[number];

/** The job events an endpoint can receive (its `events` filter; all three when not said). */
export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'job.cancelled'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * How deliveries are signed: `stripe`, the contract's `X-Service-Signature: t=..,v1=..` (which
 * Stripe's libraries verify), or `standard`, Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`).
 */
export const SIGNATURE_SCHEMES = ['stripe', 'standard'] as const;
export type SignatureSchemeName = (typeof SIGNATURE_SCHEMES)[number];

/** A rotation's overlap: how long the previous secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_HOURS = { min: 0, max: 72, default: 24 } as const;

const ref = { api_key_id: Joi.number().integer().min(1).required(), user_id: Joi.number().integer().min(1).required() };
const timestamp = Joi.string().isoDate();

export const endpointRef = named(Joi.object(ref), 'EndpointRef');
export const setEndpointRequest = named(
  Joi.object({
    ...ref,
    url: Joi.string().max(2048).required(),
    events: Joi.array()
      .items(Joi.string().valid(...WEBHOOK_EVENT_TYPES))
      .min(1)
      .unique()
      .description('The types sent; kept as they are when not given (all three for a new endpoint).'),
    signature_scheme: Joi.string()
      .valid(...SIGNATURE_SCHEMES)
      .description('Kept as it is when not given (`stripe` for a new endpoint).'),
  }),
  'SetEndpointRequest',
);
export const setEndpointReply = named(
  Joi.object({
    url: Joi.string().required(),
    secret: Joi.string().description(
      'Present only when a new signing secret was generated (first enablement, after a clear, or a change of signature scheme): shown once.',
    ),
    created: Joi.boolean().description('The key had no endpoint before this save.'),
    events: Joi.array().items(Joi.string()).description('The types sent.'),
    signature_scheme: Joi.string().valid(...SIGNATURE_SCHEMES),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'SetEndpointReply',
);
export const endpointView = named(
  Joi.object({
    url: Joi.string().allow(null).required(),
    events: Joi.array().items(Joi.string()).allow(null).description('The types sent; null when there is no endpoint.'),
    signature_scheme: Joi.string()
      .valid(...SIGNATURE_SCHEMES)
      .allow(null)
      .description('null when there is no endpoint.'),
    created_at: timestamp.allow(null).required(),
    updated_at: timestamp.allow(null).required(),
    failing_since: timestamp
      .allow(null)
      .description('First failure of the current unbroken run of failed deliveries; null after a 2xx.'),
    disabled_at: timestamp
      .allow(null)
      .description('When the endpoint was disabled for failing without a break; null while enabled.'),
  }),
  'EndpointView',
);
export const rotateSecretRequest = named(
  Joi.object({
    ...ref,
    overlap_hours: Joi.number().integer().min(ROTATION_OVERLAP_HOURS.min).max(ROTATION_OVERLAP_HOURS.max).required(),
  }),
  'RotateSecretRequest',
);
export const rotateSecretReply = named(
  Joi.object({
    secret: Joi.string().required().description('The new signing secret: shown once.'),
    previous_secret_expires_at: timestamp
      .allow(null)
      .required()
      .description('Until then deliveries are signed with the previous secret too; null when it stopped at once.'),
  }),
  'RotateSecretReply',
);

export const DELIVERY_STATUSES = ['failed', 'succeeded'] as const;
export const listDeliveriesRequest = named(
  Joi.object({
    ...ref,
    limit: Joi.number().integer().min(1).max(500),
    status: Joi.string().valid(...DELIVERY_STATUSES),
    created_gte: timestamp.description('Attempts made at or after this instant.'),
    created_lte: timestamp.description('Attempts made at or before this instant.'),
    starting_after: Joi.number().integer().min(1).description('A delivery id: the attempts older than it.'),
  }),
  'ListDeliveriesRequest',
);

/** One delivery attempt (the key's usage record of a webhook). */
export const deliveryView = named(
  Joi.object({
    id: Joi.number().integer().required(),
    event_id: Joi.string()
      .required()
      .description('Same for every attempt of one event: receivers drop duplicates by it.'),
    event: Joi.string().required(),
    job_id: Joi.string()
      .allow('')
      .required()
      .description('The job of a job.* event; "" for a `webhook.test` event, which has none.'),
    attempt: Joi.number().integer().required(),
    url: Joi.string().required(),
    status_code: Joi.number().integer().allow(null).required(),
    error: Joi.string().allow(null).required(),
    duration_ms: Joi.number().integer().required(),
    created_at: timestamp.required(),
    succeeded: Joi.boolean().required().description('Answered with a 2xx.'),
    test: Joi.boolean()
      .required()
      .description(
        'A test delivery sent from the dashboard (`webhook.test`, or a sample `job.completed`), not a real event.',
      ),
  }),
  'DeliveryView',
);
export const listDeliveriesReply = named(
  Joi.object({
    deliveries: Joi.array().items(deliveryView).required(),
    has_more: Joi.boolean().description('More attempts match past the last one of this page.'),
  }),
  'ListDeliveriesReply',
);

export const sendTestRequest = named(
  Joi.object({
    ...ref,
    event: Joi.string()
      .valid(...TEST_EVENTS)
      .description('Default `webhook.test`.'),
    sample: jobEventSchema
      .when('event', {
        is: Joi.valid('job.completed', 'job.failed', 'job.cancelled').required(),
        then: Joi.required(),
        otherwise: Joi.forbidden(),
      })
      .description('For a `job.*` test: the sample job, in the shape of a real event (the gateway builds it).'),
  }),
  'SendTestRequest',
);
/** The result of a test event: its one attempt, recorded like any other. */
export const sendTestReply = named(Joi.object({ delivery: deliveryView.required() }), 'SendTestReply');

/** The body of a job.* webhook, keys in the contract's order (section 6), then our additions. */
export const webhookPayload = named(
  Joi.object({
    job_id: Joi.string().required(),
    status: Joi.string().valid('completed', 'failed', 'cancelled').required(),
    model: Joi.string().required().description('The upstream endpoint path, e.g. `fal-ai/vidgen-2/text-to-video`.'),
    type: Joi.string().valid('video', 'image').required(),
    credits_consumed: Joi.number().integer().required(),
    created_at: timestamp.required(),
    completed_at: timestamp.allow(null).required(),
    result: jobResult.required(),
    error: Joi.string().allow(null).required(),
    source: Joi.string()
      .valid(...JOB_SOURCES)
      .description('Who made the job: `api`, `editor` (a generation of the video editor) or `dashboard`.'),
    project_id: Joi.string().allow(null).description('The editor project of an `editor` job; null otherwise.'),
  }),
  'WebhookPayload',
);

/** One attempt with what was sent and what came back (null for attempts older than the detail log). */
export const deliveryDetailKeys = {
  request_headers: Joi.object()
    .pattern(/.*/, Joi.string())
    .allow(null)
    .required()
    .description('The headers sent, signature included.'),
  request_body: Joi.string().allow(null).required().description('The raw body sent.'),
  response_body: Joi.string()
    .allow(null)
    .required()
    .description('The first 4 KB of the answer body; null when there was no answer.'),
};

export const deliveryDetail = named(deliveryView.keys(deliveryDetailKeys), 'DeliveryDetail');
export const deliveryRequest = named(
  Joi.object({ ...ref, delivery_id: Joi.number().integer().min(1).required() }),
  'DeliveryRequest',
);
export const resendReply = named(Joi.object({ delivery: deliveryView.required() }), 'ResendReply');
export const recoverRequest = named(Joi.object({ ...ref, since: storableTimestamp().required() }), 'RecoverRequest');
export const recoverReply = named(Joi.object({ queued: Joi.number().integer().min(0).required() }), 'RecoverReply');

/**
 * The dispatcher's own work item: send the event of this attempt again, unless a newer attempt of
 * the event exists by then (so a redelivered or repeated request sends it once).
 */
export const resendRequested: EventDef<T.DeliveryRequest> = {
  routingKey: ROUTING_KEYS.webhookResendRequested,
  version: 1,
  schema: deliveryRequest as Joi.Schema<T.DeliveryRequest>,
};

export const webhooksRpc = {
  queue: QUEUES.webhooksRpc,
  methods: {
    clearEndpoint: rpcMethod<T.EndpointRef, { cleared: boolean }>('webhooks.clear-endpoint', endpointRef),
    getEndpoint: rpcMethod<T.EndpointRef, T.EndpointView>('webhooks.get-endpoint', endpointRef),
    listDeliveries: rpcMethod<T.ListDeliveriesRequest, T.ListDeliveriesReply>(
      'webhooks.list-deliveries',
      listDeliveriesRequest,
    ),
    /** One attempt with its headers, body and response excerpt (404 for another key's). */
    getDelivery: rpcMethod<T.DeliveryRequest, T.DeliveryDetail>('webhooks.get-delivery', deliveryRequest),
    /** Queues one more attempt of every event since `since` whose last attempt failed. */
    recover: rpcMethod<T.RecoverRequest, T.RecoverReply>('webhooks.recover', recoverRequest),
    /** A new signing secret; the previous one keeps signing beside it for `overlap_hours`. */
    rotateSecret: rpcMethod<T.RotateSecretRequest, T.RotateSecretReply>('webhooks.rotate-secret', rotateSecretRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;

/**
 * The calls that reach out to the customer's side while the caller waits, on a queue of their own
 * (QUEUES.webhooksOutboundRpc) so reads never wait behind them. A test or resend waits only for
 * earlier ones to the same endpoint, and starts only if its attempt can end before the caller's
 * deadline; otherwise it answers 503 having sent nothing.
 */
export const webhookOutboundRpc = {
  queue: QUEUES.webhooksOutboundRpc,
  methods: {
    /** Saves the key's URL once its host resolves to addresses deliveries may reach. */
    setEndpoint: rpcMethod<T.SetEndpointRequest, T.SetEndpointReply>('webhooks.set-endpoint', setEndpointRequest),
    /** Posts one signed test event (`webhook.test`, or the sample `job.completed`) to the key's endpoint now: one attempt, no retries. */
    sendTest: rpcMethod<T.SendTestRequest, T.SendTestReply>('webhooks.send-test', sendTestRequest),
    /** Sends the attempt's event again now (same event id and body, fresh signature): a new attempt. */
    resendDelivery: rpcMethod<T.DeliveryRequest, T.ResendReply>('webhooks.resend-delivery', deliveryRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
