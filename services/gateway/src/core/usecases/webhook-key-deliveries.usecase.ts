import type { Bus } from '@mf/bus';
import {
  webhookOutboundRpc,
  webhooksRpc,
  type DeliveryDetail,
  type RecoverReply,
  type ResendReply,
} from '@mf/contracts';
import type { Knex } from '@mf/db';
import { keyOwner } from './webhooks.usecase';

/**
 * The delivery tools for one of a user's keys named by id (the dashboard), through the same RPC
 * as /api/v1/webhook (which names the calling key). `ownerId`: the signed-in user; another
 * user's key is a 404.
 */

export async function getKeyDelivery(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  deliveryId: number,
  ownerId: number,
): Promise<DeliveryDetail> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'getDelivery', { api_key_id: apiKeyId, user_id: userId, delivery_id: deliveryId });
}

/** `timeoutMs` must outlast the dispatcher's own delivery timeout. */
export async function resendKeyDelivery(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  deliveryId: number,
  ownerId: number,
  timeoutMs?: number,
): Promise<ResendReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(
    webhookOutboundRpc,
    'resendDelivery',
    { api_key_id: apiKeyId, user_id: userId, delivery_id: deliveryId },
    { timeoutMs },
  );
}

export async function recoverKeyDeliveries(
  db: Knex,
  bus: Bus,
  apiKeyId: number,
  since: string,
  ownerId: number,
): Promise<RecoverReply> {
  const userId = await keyOwner(db, apiKeyId, ownerId);
  return bus.rpc(webhooksRpc, 'recover', { api_key_id: apiKeyId, user_id: userId, since });
}
