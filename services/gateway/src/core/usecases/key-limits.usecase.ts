import type { Bus } from '@mf/bus';
import { billingKeyLimitsRpc, keyLimitsBody, validateBody, type KeyLimits } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { findKeyById } from '../repositories/api-keys.repository';
import { valid } from './validated';

/**
 * A key's spend limit and concurrent-jobs limit (docs/api-behaviour.md "Spend caps"). Billing keeps
 * them with the key's counters and checks them with each charge; the gateway, which owns the keys,
 * only lets a user set the limits of their own keys.
 */
export async function setKeyLimits(
  deps: { db: Knex; bus: Bus; correlationId?: string },
  keyId: number,
  body: unknown,
  ownerId?: number,
): Promise<KeyLimits> {
  const limits = valid(validateBody(keyLimitsBody, body, { absent: 'empty' }));
  const key = await findKeyById(deps.db, keyId);
  if (!key || (ownerId !== undefined && key.user_id !== ownerId)) throw AppError.notFound('API key not found');
  return deps.bus.rpc(
    billingKeyLimitsRpc,
    'set',
    {
      user_id: key.user_id,
      api_key_id: key.id,
      spend_limit: limits.spend_limit ?? null,
      max_concurrent_jobs: limits.max_concurrent_jobs ?? null,
    },
    { correlationId: deps.correlationId },
  );
}

/** The limits and this month's counters of the user's keys, by key id. */
export async function limitsOfKeys(
  bus: Bus,
  userId: number,
  keyIds: number[],
  correlationId?: string,
): Promise<Map<number, KeyLimits>> {
  if (keyIds.length === 0) return new Map();
  const reply = await bus.rpc(billingKeyLimitsRpc, 'get', { user_id: userId, api_key_ids: keyIds }, { correlationId });
  return new Map(reply.keys.map((k) => [k.api_key_id, k]));
}

/**
 * The admin CLI's `key:limits`: with no change given, a read of the key's limits and counters;
 * otherwise only the limits given change (null clears one), the other keeps its value.
 */
export async function changeKeyLimits(
  deps: { db: Knex; bus: Bus },
  keyId: number,
  changes: { spend_limit?: number | string | null; max_concurrent_jobs?: number | string | null },
): Promise<KeyLimits> {
  const key = await findKeyById(deps.db, keyId);
  if (!key) throw AppError.notFound('API key not found');
  const current = (await limitsOfKeys(deps.bus, key.user_id, [key.id])).get(key.id);
  if (changes.spend_limit === undefined && changes.max_concurrent_jobs === undefined) {
    if (!current) throw AppError.notFound('API key not found');
    return current;
  }
  return setKeyLimits(deps, key.id, {
    spend_limit: changes.spend_limit !== undefined ? changes.spend_limit : (current?.spend_limit ?? null),
    max_concurrent_jobs:
      changes.max_concurrent_jobs !== undefined ? changes.max_concurrent_jobs : (current?.max_concurrent_jobs ?? null),
  });
}
