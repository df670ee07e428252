import { randomUUID } from 'node:crypto';
import { webhookBody, type SendTestReply, type SendTestRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { signingSecrets } from '../domain/endpoint-secrets';
import { TEST_EVENT, testEventBody } from '../domain/webhook-request';
import { findEndpoint } from '../repositories/endpoints.repository';
import type { EndpointsContext } from './context';
import { deliveryView } from './list-deliveries.usecase';
import { ENDPOINT_NOT_FOUND } from './manage-endpoint.usecase';
import { sendAttempt } from './send-attempt';

/** The job status a sample of each job event must have. */
const SAMPLE_STATUS = { 'job.completed': 'completed', 'job.failed': 'failed', 'job.cancelled': 'cancelled' } as const;

/**
 * Posts one signed test event to the key's endpoint now and records the attempt like any other,
 * marked as a test. `webhook.test` is a ping; `job.*` is the given sample in the exact shape of a
 * real event (a handler can be tried for real), with `X-Service-Test: true` so the handler can
 * tell. It is never retried (the user is watching and can send it again), is sent to a disabled
 * endpoint too (to check it before saving its URL again), and does not count towards disabling.
 */
export async function sendTestEvent(ctx: EndpointsContext, req: SendTestRequest): Promise<SendTestReply> {
  const endpoint = await findEndpoint(ctx.db, req.api_key_id);
  if (!endpoint || endpoint.user_id !== req.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  const event = req.event ?? TEST_EVENT;
  const sample = event === TEST_EVENT ? undefined : req.sample;
  if (event !== TEST_EVENT && (!sample || sample.status !== SAMPLE_STATUS[event]))
    throw AppError.badRequest(`a ${event} test needs a ${SAMPLE_STATUS[event]} sample job`);
  // A secret sealed under another WEBHOOK_SECRET_KEY throws here: an operator's error, a 500.
  const secrets = signingSecrets(ctx.secrets, endpoint, ctx.now());
  const rawBody = sample ? webhookBody(sample) : testEventBody(endpoint.api_key_id, new Date(ctx.now()));
  const { row } = await sendAttempt(ctx, {
    endpoint,
    secrets,
    event,
    test: true,
    eventId: randomUUID(),
    jobId: sample ? sample.job_id : '',
    attempt: 1,
    rawBody,
  });
  return { delivery: deliveryView(row) };
}
