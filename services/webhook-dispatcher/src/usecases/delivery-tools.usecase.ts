import type { DeliveryDetail, DeliveryRequest, RecoverReply, RecoverRequest, ResendReply } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { signingSecrets } from '../domain/endpoint-secrets';
import type { TestEvent, WebhookEvent } from '../domain/webhook-request';
import {
  findDelivery,
  hasNewerAttempt,
  lastAttemptNumber,
  type DeliveryRow,
} from '../repositories/deliveries.repository';
import { findEndpoint, type EndpointRow } from '../repositories/endpoints.repository';
import { queueRecovered } from '../repositories/pending-attempts.repository';
import type { EndpointsContext } from './context';
import { deliveryView } from './list-deliveries.usecase';
import { ENDPOINT_NOT_FOUND } from './manage-endpoint.usecase';
import { sendAttempt } from './send-attempt';

export const DELIVERY_NOT_FOUND = 'Delivery not found';
export const ENDPOINT_DISABLED =
  'The webhook endpoint is disabled after failing without a break; save its URL again to enable it';
export const NOT_RESENDABLE = 'This delivery was recorded without its body and cannot be sent again';
/** The most events one recover call sends again (call it again for more). */
export const RECOVER_MAX = 1000;

/** One of the key's attempts with what was sent and the start of the answer; 404 for another key's. */
export async function getDelivery(ctx: EndpointsContext, req: DeliveryRequest): Promise<DeliveryDetail> {
  const row = await ownedDelivery(ctx, req);
  return {
    ...deliveryView(row),
    request_headers: row.request_headers,
    request_body: row.request_body,
    response_body: row.response_body,
  };
}

/**
 * Sends the attempt's event again now: the same event id, type and body, a fresh timestamp and
 * signature, the next attempt number; recorded as a new attempt (a resend), never retried.
 */
export async function resendDelivery(ctx: EndpointsContext, req: DeliveryRequest): Promise<ResendReply> {
  const row = await ownedDelivery(ctx, req);
  if (row.request_body === null) throw AppError.conflict(NOT_RESENDABLE);
  const { endpoint, secrets } = await usableEndpoint(ctx, req);
  const sent = await ctx.lock.run(`${row.event_id}:${row.api_key_id}`, () => sendAgain(ctx, endpoint, secrets, row));
  return { delivery: deliveryView(sent) };
}

/**
 * Every real event of the key with an attempt at or after `since` whose last attempt failed is
 * queued, in its endpoint's lane, to be sent once more, oldest first; except an event that is
 * queued already or was sent again (resend or recover) at or after `since`, so a repeated call
 * queues nothing twice. Answers how many this call queued.
 */
export async function recoverDeliveries(ctx: EndpointsContext, req: RecoverRequest): Promise<RecoverReply> {
  await usableEndpoint(ctx, req);
  const queued = await queueRecovered(ctx.db, {
    apiKeyId: req.api_key_id,
    userId: req.user_id,
    since: new Date(req.since),
    max: RECOVER_MAX,
  });
  if (queued > 0) ctx.wakeLanes();
  return { queued };
}

/**
 * A queued resend (recover's, from the endpoint's lane): sends the attempt's event again unless it
 * was attempted again since it was queued (a resend, a retry, an earlier copy of the request), so
 * each queued event is sent once. Nothing is sent when the endpoint is gone or disabled meanwhile.
 */
export async function sendQueuedResend(ctx: EndpointsContext, req: DeliveryRequest): Promise<'sent' | 'skipped'> {
  const row = await findDelivery(ctx.db, req.delivery_id, req.api_key_id, req.user_id);
  if (!row || row.request_body === null) return 'skipped';
  // Check and send under the event's lock, so two copies handled at once send it once.
  return ctx.lock.run(`${row.event_id}:${row.api_key_id}`, async () => {
    if (await hasNewerAttempt(ctx.db, row)) return 'skipped';
    const endpoint = await findEndpoint(ctx.db, req.api_key_id);
    if (!endpoint || endpoint.user_id !== req.user_id || endpoint.disabled_at !== null) return 'skipped';
    await sendAgain(ctx, endpoint, signingSecrets(ctx.secrets, endpoint, ctx.now()), row);
    return 'sent';
  });
}

async function sendAgain(
  ctx: EndpointsContext,
  endpoint: EndpointRow,
  secrets: string[],
  row: DeliveryRow,
): Promise<DeliveryRow> {
  const attempt = (await lastAttemptNumber(ctx.db, row.event_id, endpoint.api_key_id)) + 1;
  const { row: sent } = await sendAttempt(ctx, {
    endpoint,
    secrets,
    event: row.event as WebhookEvent | TestEvent,
    eventId: row.event_id,
    jobId: row.job_id,
    attempt,
    rawBody: row.request_body ?? '',
    test: row.test,
    resend: true,
  });
  return sent;
}

async function ownedDelivery(ctx: EndpointsContext, req: DeliveryRequest): Promise<DeliveryRow> {
  const row = await findDelivery(ctx.db, req.delivery_id, req.api_key_id, req.user_id);
  if (!row) throw AppError.notFound(DELIVERY_NOT_FOUND);
  return row;
}

/** The key's endpoint and its secret: 404 without one, 409 while disabled. */
async function usableEndpoint(
  ctx: EndpointsContext,
  ref: { api_key_id: number; user_id: number },
): Promise<{ endpoint: EndpointRow; secrets: string[] }> {
  const endpoint = await findEndpoint(ctx.db, ref.api_key_id);
  if (!endpoint || endpoint.user_id !== ref.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  if (endpoint.disabled_at !== null) throw AppError.conflict(ENDPOINT_DISABLED);
  // A secret sealed under another WEBHOOK_SECRET_KEY throws here: an operator's error, a 500.
  return { endpoint, secrets: signingSecrets(ctx.secrets, endpoint, ctx.now()) };
}
