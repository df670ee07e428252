import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
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
  raw: unknown,
): Promise<Pick<AuthContext, 'apiKeyId' | 'scopes'> | null> {
  if (raw === undefined || raw === null) return null;
  if (!Number.isSafeInteger(raw))
    throw AppError.badRequest('api_key_id must be the id of one of your keys, or null for the session');
  const row = await findKeyById(db, raw as number);
  if (!row || row.user_id !== userId) throw AppError.notFound(PLAYGROUND_KEY_NOT_FOUND);
  if (row.revoked_at) throw AppError.badRequest('This key is revoked: choose another one');
  return { apiKeyId: row.id, scopes: row.scopes };
}

/**
 * A run of the dashboard's playground: `{api_key_id, input}` where input is the public submit body
 * (validated with its rules and messages). An unknown type is a 404 (it is a path segment).
 */
export async function runPlayground(
  db: Knex,
  bus: Bus,
  userId: number,
  rawType: unknown,
  body: Record<string, unknown>,
  opts: SubmitOptions,
): Promise<GenerationAccepted> {
  if (!(GENERATION_TYPES as readonly unknown[]).includes(rawType)) throw AppError.notFound('Not found');
  const unknown = Object.keys(body).filter((k) => k !== 'api_key_id' && k !== 'input');
  if (unknown.length)
    throw AppError.badRequest(`unknown field: ${unknown[0].slice(0, 64)} (accepted: api_key_id, input)`);
  const input = body.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw AppError.badRequest('input must be an object: the body of the public submit endpoint');
  const key = await playgroundKey(db, userId, body.api_key_id);
  return submitPlaygroundGeneration(bus, userId, key, rawType as GenerationType, input, opts);
}
