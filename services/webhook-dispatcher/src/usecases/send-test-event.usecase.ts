import { randomUUID } from 'node:crypto';
import type { SendTestReply, SendTestRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { TEST_EVENT, testEventBody, webhookBody, webhookHeaders } from '../domain/webhook-request';
import { recordDelivery } from '../repositories/deliveries.repository';
import { findEndpoint } from '../repositories/endpoints.repository';
import type { EndpointsContext } from './context';
import { deliveryView } from './list-deliveries.usecase';
import { ENDPOINT_NOT_FOUND } from './manage-endpoint.usecase';

/**
 * Posts one signed test event to the key's endpoint now and records the attempt like any other,
 * marked as a test. `webhook.test` is a ping; `job.completed` is the given sample in the exact
 * shape of a real event (a handler can be tried for real), with `X-Service-Test: true` so the
 * handler can tell. It is never retried: the user is watching and can press the button again.
 */
export async function sendTestEvent(ctx: EndpointsContext, req: SendTestRequest): Promise<SendTestReply> {
  const endpoint = await findEndpoint(ctx.db, req.api_key_id);
  if (!endpoint || endpoint.user_id !== req.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  const sample = req.event === 'job.completed' ? req.sample : undefined;
  if (req.event === 'job.completed' && (!sample || sample.status !== 'completed'))
    throw AppError.badRequest('a job.completed test needs a completed sample job');
  // A secret sealed under another WEBHOOK_SECRET_KEY throws here: an operator's error, a 500.
  const secret = ctx.secrets.open(endpoint.secret_ciphertext);
  const eventId = randomUUID();
  const started = ctx.now();
  const event = sample ? 'job.completed' : TEST_EVENT;
  const rawBody = sample ? webhookBody(sample) : testEventBody(endpoint.api_key_id, new Date(started));
  const headers = webhookHeaders({
    event,
    test: true,
    eventId,
    attempt: 1,
    timestamp: Math.floor(started / 1000),
    secret,
    rawBody,
  });
  const post = await ctx.post(endpoint.url, rawBody, headers);
  const row = await recordDelivery(ctx.db, {
    event_id: eventId,
    event,
    // The ping concerns no job; the column is NOT NULL, so "" stands for none.
    job_id: sample ? sample.job_id : '',
    api_key_id: endpoint.api_key_id,
    user_id: endpoint.user_id,
    attempt: 1,
    url: endpoint.url,
    status_code: post.kind === 'response' ? post.status : null,
    error: post.kind === 'failure' ? post.error : null,
    duration_ms: Math.max(0, Math.round(ctx.now() - started)),
    test: true,
  });
  return { delivery: deliveryView(row) };
}
