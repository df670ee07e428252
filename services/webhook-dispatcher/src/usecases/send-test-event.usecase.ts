import { randomUUID } from 'node:crypto';
import type { EndpointRef, SendTestReply } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { TEST_EVENT, testEventBody, webhookHeaders } from '../domain/webhook-request';
import { recordDelivery } from '../repositories/deliveries.repository';
import { findEndpoint } from '../repositories/endpoints.repository';
import type { EndpointsContext } from './context';
import { deliveryView } from './list-deliveries.usecase';
import { ENDPOINT_NOT_FOUND } from './manage-endpoint.usecase';

/**
 * Posts one signed `webhook.test` event to the key's endpoint now and records the attempt like
 * any other. It is never retried: the user is watching and can press the button again.
 */
export async function sendTestEvent(ctx: EndpointsContext, ref: EndpointRef): Promise<SendTestReply> {
  const endpoint = await findEndpoint(ctx.db, ref.api_key_id);
  if (!endpoint || endpoint.user_id !== ref.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  // A secret sealed under another WEBHOOK_SECRET_KEY throws here: an operator's error, a 500.
  const secret = ctx.secrets.open(endpoint.secret_ciphertext);
  const eventId = randomUUID();
  const started = ctx.now();
  const rawBody = testEventBody(endpoint.api_key_id, new Date(started));
  const headers = webhookHeaders({ event: TEST_EVENT, eventId, attempt: 1, timestamp: Math.floor(started / 1000), secret, rawBody });
  const post = await ctx.post(endpoint.url, rawBody, headers);
  const row = await recordDelivery(ctx.db, {
    event_id: eventId,
    event: TEST_EVENT,
    // Test events concern no job; the column is NOT NULL, so "" stands for none.
    job_id: '',
    api_key_id: endpoint.api_key_id,
    user_id: endpoint.user_id,
    attempt: 1,
    url: endpoint.url,
    status_code: post.kind === 'response' ? post.status : null,
    error: post.kind === 'failure' ? post.error : null,
    duration_ms: Math.max(0, Math.round(ctx.now() - started)),
  });
  return { delivery: deliveryView(row) };
}
