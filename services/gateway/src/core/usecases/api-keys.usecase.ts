import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { generateApiKey } from '../auth/api-key';
import type { KeyRevocations } from '../auth/key-revocations';
import { parseScopes } from '../auth/scopes';
import { findKeyById, insertApiKey, revokeKey } from '../repositories/api-keys.repository';

export interface CreatedKey {
  id: number;
  /** The full key, returned this once only. */
  key: string;
  prefix: string;
  scopes: string[];
  name: string;
}

export async function createApiKey(db: Knex, userId: number, scopes: string[], name = ''): Promise<CreatedKey> {
  let parsed;
  try {
    parsed = parseScopes(scopes);
  } catch (err) {
    throw AppError.badRequest((err as Error).message);
  }
  if (name.length > 100) throw AppError.badRequest('name must be at most 100 characters');
  const k = generateApiKey();
  const row = await insertApiKey(db, { user_id: userId, name, prefix: k.prefix, key_hash: k.hash, scopes: parsed });
  return { id: row.id, key: k.key, prefix: row.prefix, scopes: row.scopes, name: row.name };
}

/**
 * Revokes a key (again: a no-op). Answers only after every gateway replica was told (this one's
 * key cache has dropped it; the others get the broker event), so the key fails at once.
 */
export async function revokeApiKey(
  db: Knex,
  revocations: KeyRevocations,
  id: number,
  ownerId?: number,
): Promise<{ id: number; revoked_at: string }> {
  const existing = await findKeyById(db, id);
  if (!existing || (ownerId !== undefined && existing.user_id !== ownerId))
    throw AppError.notFound(`no API key with id ${id}`);
  const row = await revokeKey(db, id);
  await revocations.announce({ id, user_id: existing.user_id });
  return { id, revoked_at: row!.revoked_at!.toISOString() };
}
