import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import {
  webhookOutboundRpc,
  webhooksRpc,
  type DeliveryDetail,
  type DeliveryView,
  type RecoverAccepted,
  type ResendAccepted,
  type WebhookDeliveriesPage,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookTestReply,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { AuthContext } from '../auth/auth-context';
import {
  validateListDeliveriesQuery,
  validateRecoverBody,
  validateWebhookTestBody,
} from '../validation/webhook.validators';
import { valid } from './validated';
import { sampleJobEvent } from './webhook-samples';

/**
 * The webhook delivery tools of /api/v1/webhook: the calling key's own deliveries (any active
 * key, no scope, like the key's webhook itself). The dispatcher owns the log; this asks it.
 */

export const DELIVERY_NOT_FOUND = 'Delivery not found';

export interface WebhookCallOptions {
  correlationId?: string;
}

const ref = (auth: AuthContext) => ({ api_key_id: auth.apiKeyId, user_id: auth.userId });

/** A delivery id from the path: a positive integer, else the same 404 as a missing one. */
function deliveryId(raw: unknown): number {
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,17}$/.test(raw)) throw AppError.notFound(DELIVERY_NOT_FOUND);
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw AppError.notFound(DELIVERY_NOT_FOUND);
  return id;
}

/** The public shape of one attempt (`event` is called `event_type` here; the URL is the key's own). */
export function publicDelivery(d: DeliveryView): WebhookDelivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event,
    job_id: d.job_id,
    attempt: d.attempt,
    status_code: d.status_code,
    succeeded: d.succeeded,
    error: d.error,
    duration_ms: d.duration_ms,
    created_at: d.created_at,
    test: d.test,
  };
}

function publicDetail(d: DeliveryDetail): WebhookDeliveryDetail {
  return {
    ...publicDelivery(d),
    request_headers: d.request_headers,
    request_body: d.request_body,
    response_body: d.response_body,
  };
}

export async function listDeliveriesOf(
  bus: Bus,
  auth: AuthContext,
  query: Record<string, unknown>,
  opts: WebhookCallOptions = {},
): Promise<WebhookDeliveriesPage> {
  const q = valid(validateListDeliveriesQuery(query));
  const { 'created[gte]': gte, 'created[lte]': lte, ...rest } = q;
  const reply = await bus.rpc(
    webhooksRpc,
    'listDeliveries',
    { ...ref(auth), ...rest, ...(gte ? { created_gte: gte } : {}), ...(lte ? { created_lte: lte } : {}) },
    opts,
  );
  return { deliveries: reply.deliveries.map(publicDelivery), has_more: reply.has_more ?? false };
}

export async function getDeliveryOf(
  bus: Bus,
  auth: AuthContext,
  rawId: unknown,
  opts: WebhookCallOptions = {},
): Promise<WebhookDeliveryDetail> {
  const detail = await bus.rpc(webhooksRpc, 'getDelivery', { ...ref(auth), delivery_id: deliveryId(rawId) }, opts);
  return publicDetail(detail);
}

/** Sends the attempt's event again now (same event id and body, fresh signature). `timeoutMs` outlasts one attempt. */
export async function resendDeliveryOf(
  bus: Bus,
  auth: AuthContext,
  rawId: unknown,
  opts: WebhookCallOptions & { timeoutMs?: number } = {},
): Promise<ResendAccepted> {
  const id = deliveryId(rawId);
  const { delivery } = await bus.rpc(webhookOutboundRpc, 'resendDelivery', { ...ref(auth), delivery_id: id }, opts);
  return { delivery_id: delivery.id };
}

export async function recoverDeliveriesOf(
  bus: Bus,
  auth: AuthContext,
  body: unknown,
  opts: WebhookCallOptions = {},
): Promise<RecoverAccepted> {
  const { since } = valid(validateRecoverBody(body));
  return bus.rpc(webhooksRpc, 'recover', { ...ref(auth), since: new Date(since).toISOString() }, opts);
}

export interface WebhookTestDeps {
  publicBaseUrl: string;
  falEndpoints: FalEndpoints;
  /** Outlasts the dispatcher's own delivery timeout. */
  timeoutMs: number;
}

/** Sends a signed sample of a job event to the key's webhook now, marked `X-Service-Test: true`. */
export async function sendWebhookTestOf(
  bus: Bus,
  auth: AuthContext,
  body: unknown,
  deps: WebhookTestDeps,
  opts: WebhookCallOptions = {},
): Promise<WebhookTestReply> {
  const { type } = valid(validateWebhookTestBody(body));
  const sample = {
    ...sampleJobEvent(type, deps.publicBaseUrl, deps.falEndpoints),
    user_id: auth.userId,
    api_key_id: auth.apiKeyId,
  };
  const { delivery } = await bus.rpc(
    webhookOutboundRpc,
    'sendTest',
    { ...ref(auth), event: type, sample },
    { ...opts, timeoutMs: deps.timeoutMs },
  );
  return { delivery: publicDelivery(delivery) };
}
