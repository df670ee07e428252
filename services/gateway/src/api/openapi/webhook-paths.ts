import {
  listWebhookDeliveriesQuery,
  putWebhookBody,
  recoverBody,
  rotateWebhookSecretBody,
  webhookTestBody,
} from '@mf/contracts';
import { errorResponse, noStoreHeader, ok, op, pathParam, queryParams, ref, type Json } from './helpers';

/** The webhook delivery tools of /api/v1/webhook: the calling key's own deliveries. */

const deliveryId = pathParam('id', 'A delivery `id` (a positive integer).', {
  type: 'string',
  pattern: '^[1-9][0-9]*$',
});
const disabled = errorResponse(
  'The webhook endpoint is disabled after failing without a break (save its URL again to enable it), or the attempt was recorded without its body.',
  ref('Error'),
);
const noWebhook = errorResponse(
  '`Delivery not found`, or `Webhook endpoint not found` (the key has no webhook URL).',
  ref('Error'),
);

const noEndpoint = errorResponse('`No webhook configured`: the key has no webhook endpoint.', ref('Error'));

export const webhookPaths: Json = {
  '/api/v1/webhook': {
    put: op({
      id: 'setWebhook',
      summary: 'Set the key’s webhook endpoint',
      tag: 'Webhooks',
      description:
        'Creates the calling key’s endpoint (201, with its signing `secret` shown this once) or changes it (200, no secret; a change of `signature_scheme` generates a new secret, shown once). `events` filters which job events are sent (all three when not given); an event filtered out is neither sent nor recorded as an attempt. The URL rules and messages are the dashboard’s: https, a public address, no credentials, an allowed port, a host that resolves.',
      body: putWebhookBody,
      responses: {
        '200': ok('Changed.', ref('WebhookEndpointSaved'), noStoreHeader),
        '201': ok('Created; `secret` is shown this once.', ref('WebhookEndpointSaved'), noStoreHeader),
      },
    }),
    get: op({
      id: 'getWebhook',
      summary: 'The key’s webhook endpoint',
      tag: 'Webhooks',
      description: 'Never the secret. Another key of the same user has its own endpoint.',
      responses: { '200': ok('The endpoint.', ref('WebhookEndpoint'), noStoreHeader), '404': noEndpoint },
    }),
    delete: op({
      id: 'deleteWebhook',
      summary: 'Delete the key’s webhook endpoint',
      tag: 'Webhooks',
      description: 'Nothing is sent after this answer. The next PUT creates a new endpoint with a new secret.',
      responses: { '200': ok('Deleted.', ref('WebhookEndpointDeleted')), '404': noEndpoint },
    }),
  },
  '/api/v1/webhook/secret/rotate': {
    post: op({
      id: 'rotateWebhookSecret',
      summary: 'Roll the webhook signing secret',
      tag: 'Webhooks',
      description:
        'A new secret, shown once. Until `previous_secret_expires_at` every delivery (new events, retries, resends) carries a signature by each secret: `X-Service-Signature: t=<ts>,v1=<new>,v1=<old>` (Stripe’s format for a rolling secret), or two space-separated `v1,<sig>` entries in `webhook-signature` for the `standard` scheme. `overlap_hours: 0` stops the old secret at once. No event is held back by a rotation.',
      body: rotateWebhookSecretBody,
      bodyRequired: false,
      responses: { '200': ok('The new secret.', ref('WebhookSecretRotated'), noStoreHeader), '404': noEndpoint },
    }),
  },
  '/api/v1/webhook/deliveries': {
    get: op({
      id: 'listWebhookDeliveries',
      summary: "List the key's webhook delivery attempts",
      tag: 'Webhooks',
      description:
        'Every attempt to deliver an event to this key’s webhook URL, newest first. Page with `starting_after` = the last `id` of the previous page; an unknown parameter is a 400 naming it.',
      parameters: queryParams(listWebhookDeliveriesQuery),
      responses: { '200': ok('A page of attempts.', ref('WebhookDeliveriesPage'), noStoreHeader) },
    }),
  },
  '/api/v1/webhook/deliveries/{id}': {
    parameters: [deliveryId],
    get: op({
      id: 'getWebhookDelivery',
      summary: 'One delivery attempt with what was sent and answered',
      tag: 'Webhooks',
      description:
        'The headers sent (signature included), the body sent and the first 4 KB of the answer body. Another key’s attempt is a 404.',
      responses: {
        '200': ok('The attempt.', ref('WebhookDeliveryDetail'), noStoreHeader),
        '404': noWebhook,
      },
    }),
  },
  '/api/v1/webhook/deliveries/{id}/resend': {
    parameters: [deliveryId],
    post: op({
      id: 'resendWebhookDelivery',
      summary: 'Send an attempt’s event again',
      tag: 'Webhooks',
      description:
        'The same event (same `X-Service-Event-Id`, its event-log id, and body) signed with a fresh timestamp, as the next attempt number; recorded as a new attempt, not retried. A 503 means it was not sent (it could not be made in time to answer): calling again sends it once.',
      responses: { '202': ok('Sent; the new attempt.', ref('ResendAccepted')), '404': noWebhook, '409': disabled },
    }),
  },
  '/api/v1/webhook/recover': {
    post: op({
      id: 'recoverWebhookDeliveries',
      summary: 'Send again every event since a time whose last attempt failed',
      tag: 'Webhooks',
      description:
        'Each such event (at most 1,000 a call) is queued to be sent once more, oldest first; test events are not, nor an event already queued or sent again (resend, recover) since `since`. Answers how many this call queued: calling twice sends each event once.',
      body: recoverBody,
      responses: { '202': ok('Queued.', ref('RecoverAccepted')), '404': noWebhook, '409': disabled },
    }),
  },
  '/api/v1/webhook/test': {
    post: op({
      id: 'sendWebhookTest',
      summary: 'Send a sample job event to the key’s webhook',
      tag: 'Webhooks',
      description:
        'A sample of `job.completed`, `job.failed` or `job.cancelled` in the exact shape of a real event, signed, with `X-Service-Test: true`; its `job_id` starts `job_test` and names no job. Sent once now, never retried; a 503 means it was not sent (earlier tests to the same endpoint held it past the time it could still be answered in).',
      body: webhookTestBody,
      responses: { '200': ok('The attempt.', ref('WebhookTestReply')), '404': noWebhook },
    }),
  },
};
