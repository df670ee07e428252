import {
  listWebhookDeliveriesQuery,
  putWebhookBody,
  recoverBody,
  rotateWebhookSecretBody,
  webhookTestBody,
} from '@mf/contracts';
import { errorResponse, noStoreHeader, ok, pathParam, ref } from './openapi-helpers';
import type { Operation } from './operation';

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

/** The calling key's own webhook endpoint and its deliveries: list, detail, resend, recover, test events. */
export const WEBHOOK_OPERATIONS = [
  {
    id: 'setWebhook',
    sdk: 'hand-written',
    method: 'put',
    path: '/webhook',
    summary: 'Set the key’s webhook endpoint',
    tag: 'Webhooks',
    description:
      'Creates the calling key’s endpoint (201, with its signing `secret` shown this once) or changes it (200, no secret; a change of `signature_scheme` generates a new secret, shown once). `events` filters which job events are sent (all three when not given); an event filtered out is neither sent nor recorded as an attempt. The URL rules and messages are the dashboard’s: https, a public address, no credentials, an allowed port, a host that resolves.',
    body: putWebhookBody,
    reply: { status: 200, description: 'Changed.', schema: 'WebhookEndpointSaved', noStore: 'always' },
    statuses: { '201': ok('Created; `secret` is shown this once.', ref('WebhookEndpointSaved'), noStoreHeader) },
  },
  {
    id: 'getWebhook',
    sdk: 'hand-written',
    method: 'get',
    path: '/webhook',
    summary: 'The key’s webhook endpoint',
    tag: 'Webhooks',
    description: 'Never the secret. Another key of the same user has its own endpoint.',
    reply: { status: 200, description: 'The endpoint.', schema: 'WebhookEndpoint', noStore: 'always' },
    statuses: { '404': noEndpoint },
  },
  {
    id: 'deleteWebhook',
    sdk: 'hand-written',
    method: 'delete',
    path: '/webhook',
    summary: 'Delete the key’s webhook endpoint',
    tag: 'Webhooks',
    description: 'Nothing is sent after this answer. The next PUT creates a new endpoint with a new secret.',
    reply: { status: 200, description: 'Deleted.', schema: 'WebhookEndpointDeleted' },
    statuses: { '404': noEndpoint },
  },
  {
    id: 'rotateWebhookSecret',
    sdk: 'hand-written',
    method: 'post',
    path: '/webhook/secret/rotate',
    summary: 'Roll the webhook signing secret',
    tag: 'Webhooks',
    description:
      'A new secret, shown once. Until `previous_secret_expires_at` every delivery (new events, retries, resends) carries a signature by each secret: `X-Service-Signature: t=<ts>,v1=<new>,v1=<old>` (Stripe’s format for a rolling secret), or two space-separated `v1,<sig>` entries in `webhook-signature` for the `standard` scheme. `overlap_hours: 0` stops the old secret at once. No event is held back by a rotation.',
    body: rotateWebhookSecretBody,
    bodyRequired: false,
    reply: { status: 200, description: 'The new secret.', schema: 'WebhookSecretRotated', noStore: 'always' },
    statuses: { '404': noEndpoint },
  },
  {
    id: 'listWebhookDeliveries',
    sdk: 'hand-written',
    method: 'get',
    path: '/webhook/deliveries',
    summary: "List the key's webhook delivery attempts",
    tag: 'Webhooks',
    description:
      'Every attempt to deliver an event to this key’s webhook URL, newest first. Page with `starting_after` = the last `id` of the previous page; an unknown parameter is a 400 naming it.',
    query: listWebhookDeliveriesQuery,
    reply: { status: 200, description: 'A page of attempts.', schema: 'WebhookDeliveriesPage', noStore: 'always' },
  },
  {
    id: 'getWebhookDelivery',
    sdk: 'hand-written',
    method: 'get',
    path: '/webhook/deliveries/{id}',
    pathParams: [deliveryId],
    summary: 'One delivery attempt with what was sent and answered',
    tag: 'Webhooks',
    description:
      'The headers sent (signature included), the body sent and the first 4 KB of the answer body. Another key’s attempt is a 404.',
    reply: { status: 200, description: 'The attempt.', schema: 'WebhookDeliveryDetail', noStore: 'always' },
    statuses: { '404': noWebhook },
  },
  {
    id: 'resendWebhookDelivery',
    sdk: 'hand-written',
    method: 'post',
    path: '/webhook/deliveries/{id}/resend',
    pathParams: [deliveryId],
    summary: 'Send an attempt’s event again',
    tag: 'Webhooks',
    description:
      'The same event (same `X-Service-Event-Id`, its event-log id, and body) signed with a fresh timestamp, as the next attempt number; recorded as a new attempt, not retried. A 503 means it was not sent (it could not be made in time to answer): calling again sends it once.',
    reply: { status: 202, description: 'Sent; the new attempt.', schema: 'ResendAccepted' },
    statuses: { '404': noWebhook, '409': disabled },
  },
  {
    id: 'recoverWebhookDeliveries',
    sdk: 'hand-written',
    method: 'post',
    path: '/webhook/recover',
    summary: 'Send again every event since a time whose last attempt failed',
    tag: 'Webhooks',
    description:
      'Each such event (at most 1,000 a call) is queued to be sent once more, oldest first; test events are not, nor an event already queued or sent again (resend, recover) since `since`. Answers how many this call queued: calling twice sends each event once.',
    body: recoverBody,
    reply: { status: 202, description: 'Queued.', schema: 'RecoverAccepted' },
    statuses: { '404': noWebhook, '409': disabled },
  },
  {
    id: 'sendWebhookTest',
    sdk: 'hand-written',
    method: 'post',
    path: '/webhook/test',
    summary: 'Send a sample job event to the key’s webhook',
    tag: 'Webhooks',
    description:
      'A sample of `job.completed`, `job.failed` or `job.cancelled` in the exact shape of a real event, signed, with `X-Service-Test: true`; its `job_id` starts `job_test` and names no job. Sent once now, never retried; a 503 means it was not sent (earlier tests to the same endpoint held it past the time it could still be answered in).',
    body: webhookTestBody,
    reply: { status: 200, description: 'The attempt.', schema: 'WebhookTestReply' },
    statuses: { '404': noWebhook },
  },
] as const satisfies readonly Operation[];
