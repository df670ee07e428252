// The webhook delivery tools of the calling key (/api/v1/webhook): list, detail, resend, recover,
// and sample events. Kept out of client.ts; the client hands in its transport.
import type { components, paths } from './generated/openapi';
import { route } from './generated/operations';

type Schemas = components['schemas'];

export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryDetail = Schemas['WebhookDeliveryDetail'];
export type WebhookDeliveriesPage = Schemas['WebhookDeliveriesPage'];
export type ListWebhookDeliveriesParams = NonNullable<
  paths['/api/v1/webhook/deliveries']['get']['parameters']['query']
>;
export type ResendWebhookResponse = Schemas['ResendAccepted'];
export type RecoverWebhooksResponse = Schemas['RecoverAccepted'];
export type WebhookTestResponse = Schemas['WebhookTestReply'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointSaved = Schemas['WebhookEndpointSaved'];
export type WebhookSecretRotated = Schemas['WebhookSecretRotated'];
export type SetWebhookParams = NonNullable<
  paths['/api/v1/webhook']['put']['requestBody']
>['content']['application/json'];
/** The job events a sample can be sent of. */
export type WebhookTestType = NonNullable<
  paths['/api/v1/webhook/test']['post']['requestBody']
>['content']['application/json']['type'];
export const WEBHOOK_TEST_TYPES: readonly WebhookTestType[] = ['job.completed', 'job.failed', 'job.cancelled'];

/** The per-call options the client's methods take. */
export interface WebhookCallOptions {
  maxRetries?: number;
  signal?: AbortSignal;
  idempotencyKey?: string;
}

/** The client's transport: one API call, answered with its parsed body or a typed ApiError. */
export type WebhookTransport = <T>(call: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
  opts?: WebhookCallOptions;
}) => Promise<T>;

/** `client.webhook`: the calling key's webhook endpoint and its deliveries. */
export class WebhookDeliveries {
  constructor(private readonly call: WebhookTransport) {}

  /** Creates or changes the key's endpoint; `secret` is in the answer only when one was generated. */
  set(params: SetWebhookParams, opts?: WebhookCallOptions): Promise<WebhookEndpointSaved> {
    return this.call({ ...route('setWebhook'), body: params, opts });
  }

  /** The key's endpoint (never its secret); a NotFoundError when it has none. */
  get(opts?: WebhookCallOptions): Promise<WebhookEndpoint> {
    return this.call({ ...route('getWebhook'), opts });
  }

  /** Deletes the key's endpoint: nothing is sent after this. */
  delete(opts?: WebhookCallOptions): Promise<{ deleted: true }> {
    return this.call({ ...route('deleteWebhook'), opts });
  }

  /** A new signing secret; the previous one keeps signing beside it for `overlapHours` (default 24, 0-72). */
  rotateSecret(overlapHours?: number, opts?: WebhookCallOptions): Promise<WebhookSecretRotated> {
    const body = overlapHours === undefined ? {} : { overlap_hours: overlapHours };
    return this.call({ ...route('rotateWebhookSecret'), body, opts });
  }

  /** One page of attempts, newest first; page with `starting_after` = the last `id`. */
  listDeliveries(params: ListWebhookDeliveriesParams = {}, opts?: WebhookCallOptions): Promise<WebhookDeliveriesPage> {
    const query: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query[k] = String(v);
    return this.call({ ...route('listWebhookDeliveries'), query, opts });
  }

  /** One attempt with the headers and body sent and the first 4 KB of the answer. */
  getDelivery(id: number, opts?: WebhookCallOptions): Promise<WebhookDeliveryDetail> {
    return this.call({ ...route('getWebhookDelivery', { id }), opts });
  }

  /** Sends the attempt's event again (same event id and body, fresh signature): the new attempt's id. */
  resend(id: number, opts?: WebhookCallOptions): Promise<ResendWebhookResponse> {
    return this.call({ ...route('resendWebhookDelivery', { id }), opts });
  }

  /** Sends again, once, every event since `since` whose last attempt failed; how many were queued. */
  recover(since: Date | string, opts?: WebhookCallOptions): Promise<RecoverWebhooksResponse> {
    const iso = since instanceof Date ? since.toISOString() : since;
    return this.call({ ...route('recoverWebhookDeliveries'), body: { since: iso }, opts });
  }

  /** Sends a signed sample of a job event to the key's webhook now, with `X-Service-Test: true`. */
  sendTest(type: WebhookTestType, opts?: WebhookCallOptions): Promise<WebhookTestResponse> {
    return this.call({ ...route('sendWebhookTest'), body: { type }, opts });
  }
}
