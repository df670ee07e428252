import type { Bus } from '@mf/bus';
import {
  ROTATION_OVERLAP_HOURS,
  webhookOutboundRpc,
  webhooksRpc,
  type WebhookEndpoint,
  type WebhookEndpointDeleted,
  type WebhookEndpointSaved,
  type WebhookSecretRotated,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { AuthContext } from '../auth/auth-context';
import { validatePutWebhookBody, validateRotateWebhookSecretBody } from '../validation/webhook.validators';
import { valid } from './validated';
import type { WebhookCallOptions } from './webhook-deliveries.usecase';

/**
 * The calling key's webhook endpoint over REST (any active key, no scope, like its delivery log):
 * the same endpoint the dashboard and the admin CLI set, owned by the dispatcher.
 */

export const NO_WEBHOOK = 'No webhook configured';

const ref = (auth: AuthContext) => ({ api_key_id: auth.apiKeyId, user_id: auth.userId });

/** The dispatcher's 404 for a missing endpoint, in this API's words. */
async function orNoWebhook<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof AppError && err.kind === 'not_found') throw AppError.notFound(NO_WEBHOOK);
    throw err;
  }
}

/** Creates (201, the secret shown once) or changes (200) the key's endpoint. `timeoutMs` outlasts the URL's resolution. */
export async function putWebhookOf(
  bus: Bus,
  auth: AuthContext,
  body: unknown,
  opts: WebhookCallOptions & { timeoutMs?: number } = {},
): Promise<{ status: 200 | 201; body: WebhookEndpointSaved }> {
  const b = valid(validatePutWebhookBody(body));
  const reply = await orNoWebhook(
    bus.rpc(
      webhookOutboundRpc,
      'setEndpoint',
      {
        ...ref(auth),
        url: b.url,
        ...(b.events ? { events: b.events } : {}),
        ...(b.signature_scheme ? { signature_scheme: b.signature_scheme } : {}),
      },
      opts,
    ),
  );
  const saved: WebhookEndpointSaved = {
    url: reply.url,
    events: reply.events as WebhookEndpointSaved['events'],
    signature_scheme: reply.signature_scheme!,
    created_at: reply.created_at!,
    updated_at: reply.updated_at!,
    ...(reply.secret !== undefined ? { secret: reply.secret } : {}),
  };
  return { status: reply.created ? 201 : 200, body: saved };
}

export async function getWebhookOf(
  bus: Bus,
  auth: AuthContext,
  opts: WebhookCallOptions = {},
): Promise<WebhookEndpoint> {
  const view = await orNoWebhook(bus.rpc(webhooksRpc, 'getEndpoint', ref(auth), opts));
  if (view.url === null) throw AppError.notFound(NO_WEBHOOK);
  return {
    url: view.url,
    events: (view.events ?? []) as WebhookEndpoint['events'],
    signature_scheme: view.signature_scheme ?? 'stripe',
    created_at: view.created_at!,
    updated_at: view.updated_at!,
    failing_since: view.failing_since ?? null,
    disabled_at: view.disabled_at ?? null,
  };
}

/** Deletes the key's endpoint: nothing is sent to it after this answer. */
export async function deleteWebhookOf(
  bus: Bus,
  auth: AuthContext,
  opts: WebhookCallOptions = {},
): Promise<WebhookEndpointDeleted> {
  const { cleared } = await orNoWebhook(bus.rpc(webhooksRpc, 'clearEndpoint', ref(auth), opts));
  if (!cleared) throw AppError.notFound(NO_WEBHOOK);
  return { deleted: true };
}

/** A new secret; the previous one keeps signing beside it for `overlap_hours` (default 24). */
export async function rotateWebhookSecretOf(
  bus: Bus,
  auth: AuthContext,
  body: unknown,
  opts: WebhookCallOptions = {},
): Promise<WebhookSecretRotated> {
  const b = valid(validateRotateWebhookSecretBody(body));
  return orNoWebhook(
    bus.rpc(
      webhooksRpc,
      'rotateSecret',
      { ...ref(auth), overlap_hours: b.overlap_hours ?? ROTATION_OVERLAP_HOURS.default },
      opts,
    ),
  );
}
