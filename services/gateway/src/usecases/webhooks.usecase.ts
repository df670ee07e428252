import type { Bus } from '@mf/bus';
import { webhooksRpc, type EndpointView, type ListDeliveriesReply, type SendTestReply, type SetEndpointReply } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { findKeyById } from '../repositories/api-keys.repository';

/** The key's owner, which the dispatcher checks every endpoint operation against. */
async function keyOwner(db: Knex, apiKeyId: number, ownerId?: number): Promise<number> {
  const key = await findKeyById(db, apiKeyId);
  if (!key || (ownerId !== undefined && key.user_id !== ownerId)) throw AppError.notFound(`no API key with id ${apiKeyId}`);
  return key.user_id;
}

/** Sets the key's webhook URL; the reply has the signing secret only when one was just generated. */
export async function setWebhook(db: Knex, bus: Bus, apiKeyId: number, url: string, ownerId?: number): Promise<SetEndpointReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: userId, url });
}

export async function clearWebhook(db: Knex, bus: Bus, apiKeyId: number, ownerId?: number): Promise<{ cleared: boolean }> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'clearEndpoint', { api_key_id: apiKeyId, user_id: userId });
}

export async function listWebhookDeliveries(db: Knex, bus: Bus, apiKeyId: number, limit?: number, ownerId?: number): Promise<ListDeliveriesReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: userId, ...(limit ? { limit } : {}) });
}

/** The key's webhook URL and dates (nulls when none); never the secret. */
export async function getWebhook(db: Knex, bus: Bus, apiKeyId: number, ownerId?: number): Promise<EndpointView> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: userId });
}

/**
 * Sends a signed `webhook.test` event to the key's webhook now and returns its recorded attempt.
 * `timeoutMs` must outlast the dispatcher's own delivery timeout.
 */
export async function sendTestWebhook(db: Knex, bus: Bus, apiKeyId: number, ownerId?: number, timeoutMs?: number): Promise<SendTestReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'sendTest', { api_key_id: apiKeyId, user_id: userId }, { timeoutMs });
}
