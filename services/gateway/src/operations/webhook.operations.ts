import { listWebhookDeliveriesQuery, recoverBody, webhookTestBody } from '@mf/contracts';
import { errorResponse, pathParam, ref } from './openapi-helpers';
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

/** The calling key's own webhook deliveries: list, detail, resend, recover, test events. */
export const WEBHOOK_OPERATIONS = [
  {
    id: 'listWebhookDeliveries',
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
