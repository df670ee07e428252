import type {
  EndpointRef,
  EndpointView,
  RotateSecretReply,
  RotateSecretRequest,
  SetEndpointReply,
  SetEndpointRequest,
} from '@mf/contracts';
import { WEBHOOK_EVENT_TYPES } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { generateSigningSecret, type SignatureScheme } from '../domain/signing';
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpointIfAbsent,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointRow,
} from '../repositories/endpoints.repository';
import type { EndpointsContext } from './context';
import { assertWebhookUrl } from './endpoint-url';

export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/**
 * Saves the key's webhook URL, and its event filter and signature scheme when given. The first
 * save (or the first after a clear) generates the signing secret and returns it, once; a later
 * save keeps the secret, unless it changes the scheme: each scheme's receivers read secrets their
 * own way, so a new one is generated and returned (and the old one stops at once).
 */
export async function setEndpoint(ctx: EndpointsContext, req: SetEndpointRequest): Promise<SetEndpointReply> {
  const url = req.url.trim();
  await assertWebhookUrl(url, ctx.urlPolicy);
  // Insert-or-update without a transaction: each step is one atomic statement, and a clear racing
  // between them only sends us round again.
  for (let round = 0; round < 3; round++) {
    const existing = await findEndpoint(ctx.db, req.api_key_id);
    if (existing && existing.user_id !== req.user_id) throw AppError.notFound(ENDPOINT_NOT_FOUND);
    if (!existing) {
      const scheme: SignatureScheme = req.signature_scheme ?? 'stripe';
      const secret = generateSigningSecret(scheme);
      const inserted = await insertEndpointIfAbsent(ctx.db, {
        api_key_id: req.api_key_id,
        user_id: req.user_id,
        url,
        secret_ciphertext: ctx.secrets.seal(secret),
        events: req.events ?? [...WEBHOOK_EVENT_TYPES],
        signature_scheme: scheme,
      });
      if (inserted) return { ...endpointReply(inserted), created: true, secret };
      continue;
    }
    const newScheme =
      req.signature_scheme !== undefined && req.signature_scheme !== existing.signature_scheme
        ? req.signature_scheme
        : undefined;
    const secret = newScheme ? generateSigningSecret(newScheme) : undefined;
    const updated = await updateEndpoint(ctx.db, req.api_key_id, req.user_id, url, {
      events: req.events,
      scheme:
        newScheme && secret ? { signature_scheme: newScheme, secret_ciphertext: ctx.secrets.seal(secret) } : undefined,
    });
    if (updated) return { ...endpointReply(updated), created: false, ...(secret ? { secret } : {}) };
  }
  throw AppError.conflict('The webhook endpoint is being changed concurrently; retry');
}

/**
 * A new signing secret for the key's endpoint (its scheme's kind). The previous one keeps signing
 * beside it for `overlap_hours` (every delivery carries both signatures, so receivers can move to
 * the new secret at their pace), and stops at once with 0.
 */
export async function rotateSecret(ctx: EndpointsContext, req: RotateSecretRequest): Promise<RotateSecretReply> {
  for (let round = 0; round < 3; round++) {
    const row = await ownedEndpoint(ctx, req);
    if (!row) throw AppError.notFound(ENDPOINT_NOT_FOUND);
    const secret = generateSigningSecret(row.signature_scheme);
    const expiresAt = req.overlap_hours > 0 ? new Date(ctx.now() + req.overlap_hours * 3_600_000) : null;
    if (
      await rotateEndpointSecret(
        ctx.db,
        req.api_key_id,
        req.user_id,
        row.secret_ciphertext,
        ctx.secrets.seal(secret),
        expiresAt,
      )
    )
      return { secret, previous_secret_expires_at: expiresAt?.toISOString() ?? null };
  }
  throw AppError.conflict('The webhook secret is being rotated concurrently; retry');
}

function endpointReply(row: EndpointRow): Omit<SetEndpointReply, 'secret' | 'created'> {
  return {
    url: row.url,
    events: row.events,
    signature_scheme: row.signature_scheme,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
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
  if (!row)
    return {
      url: null,
      events: null,
      signature_scheme: null,
      created_at: null,
      updated_at: null,
      failing_since: null,
      disabled_at: null,
    };
  return {
    url: row.url,
    events: row.events,
    signature_scheme: row.signature_scheme,
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
