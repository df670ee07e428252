import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import type { PlaygroundBody } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { AuthContext } from '../auth/auth-context';
import { findKeyById } from '../repositories/api-keys.repository';
import {
  GENERATION_TYPES,
  submitPlaygroundGeneration,
  type GenerationAccepted,
  type GenerationType,
  type SubmitOptions,
} from './generate.usecase';

export const PLAYGROUND_KEY_NOT_FOUND = 'API key not found';

/** The key a playground run uses: null for the session, else one of the user's active keys. */
export async function playgroundKey(
  db: Knex,
  userId: number,
  apiKeyId: number | null,
): Promise<Pick<AuthContext, 'apiKeyId' | 'scopes'> | null> {
  if (apiKeyId === null) return null;
  const row = await findKeyById(db, apiKeyId);
  if (!row || row.user_id !== userId) throw AppError.notFound(PLAYGROUND_KEY_NOT_FOUND);
  if (row.revoked_at) throw AppError.badRequest('This key is revoked: choose another one');
  return { apiKeyId: row.id, scopes: row.scopes };
}

/**
 * A run of the dashboard's playground (its body validated by the route): input is the public submit
 * body, validated with its rules and messages. An unknown type is a 404 (it is a path segment).
 */
export async function runPlayground(
  db: Knex,
  bus: Bus,
  userId: number,
  rawType: unknown,
  body: PlaygroundBody,
  opts: SubmitOptions,
): Promise<GenerationAccepted> {
  if (!(GENERATION_TYPES as readonly unknown[]).includes(rawType)) throw AppError.notFound('Not found');
  const key = await playgroundKey(db, userId, body.api_key_id);
  return submitPlaygroundGeneration(bus, userId, key, rawType as GenerationType, body.input, opts);
}
