import type { EndpointRef, EndpointView, SetEndpointReply, SetEndpointRequest } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { generateSigningSecret } from '../domain/signing';
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpointIfAbsent,
  updateEndpointUrl,
} from '../repositories/endpoints.repository';
import type { EndpointsContext } from './context';
import { assertWebhookUrl } from './endpoint-url';

export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/**
 * Saves the key's webhook URL. The first save (or the first after a clear) generates the signing
 * secret and returns it, once; a later save changes the URL only and keeps the secret.
 */
export async function setEndpoint(ctx: EndpointsContext, req: SetEndpointRequest): Promise<SetEndpointReply> {
  const url = req.url.trim();
  await assertWebhookUrl(url, ctx.urlPolicy);
  const secret = generateSigningSecret();
  const secret_ciphertext = ctx.secrets.seal(secret);
  // Insert-or-update without a transaction: each step is one atomic statement, and a clear racing
  // between them only sends us round again.
  for (let round = 0; round < 3; round++) {
    if (
      await insertEndpointIfAbsent(ctx.db, { api_key_id: req.api_key_id, user_id: req.user_id, url, secret_ciphertext })
    )
      return { url, secret };
    if (await updateEndpointUrl(ctx.db, req.api_key_id, req.user_id, url)) return { url };
    if (await findEndpoint(ctx.db, req.api_key_id)) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  }
  throw AppError.conflict('The webhook endpoint is being changed concurrently; retry');
}

/** Removes the key's webhook; the next save generates a new secret (the contract's rotation). */
export async function clearEndpoint(ctx: EndpointsContext, ref: EndpointRef): Promise<{ cleared: boolean }> {
  if (await deleteEndpoint(ctx.db, ref.api_key_id, ref.user_id)) return { cleared: true };
  await ownedEndpoint(ctx, ref);
  return { cleared: false };
}

/** The key's webhook URL, dates and health (failing since, disabled at); never the secret. */
export async function getEndpoint(ctx: EndpointsContext, ref: EndpointRef): Promise<EndpointView> {
  const row = await ownedEndpoint(ctx, ref);
  if (!row) return { url: null, created_at: null, updated_at: null, failing_since: null, disabled_at: null };
  return {
    url: row.url,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    failing_since: row.failing_since?.toISOString() ?? null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}

/** The key's endpoint if any; 404 when it belongs to another user. */
async function ownedEndpoint(ctx: EndpointsContext, ref: EndpointRef) {
  const row = await findEndpoint(ctx.db, ref.api_key_id);
  if (row && row.user_id !== ref.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
  return row;
}
