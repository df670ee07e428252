import type { Knex } from '@mf/db';
import { AppError, type AuthChallenge } from '@mf/errors';
import { looksLike } from '../oauth/tokens';
import { findActiveKeyByHash } from '../repositories/api-keys.repository';
import { hashApiKey, looksLikeApiKey } from './api-key';
import type { KeyCache } from './key-cache';

/** Who is calling: the key's owner, the key, and the key's scopes. Every use case takes one. */
export interface AuthContext {
  userId: number;
  apiKeyId: number;
  scopes: string[];
}

/**
 * Who calls the editor: an API key's context, or the dashboard session's, which has no key
 * (apiKeyId null: its turns are billed to the user without a key; docs/decisions.md).
 */
export type EditorCaller = Omit<AuthContext, 'apiKeyId'> & { apiKeyId: number | null };

const challenge: AuthChallenge = { scheme: 'Bearer', params: [['realm', 'api']] };
export const MISSING_AUTH = (): AppError =>
  new AppError('unauthenticated', { error: 'Missing Authorization header' }, { challenge });
export const INVALID_KEY = (): AppError =>
  new AppError('unauthenticated', { error: 'Invalid or revoked API key' }, { challenge });
/** An MCP OAuth access token sent to REST: say where it belongs instead of calling it a bad key. */
export const OAUTH_TOKEN_ON_REST = (): AppError =>
  new AppError(
    'unauthenticated',
    {
      error:
        'OAuth access tokens are for the MCP endpoint (/api/mcp); the REST API takes API keys (mf_live_...) from the dashboard',
    },
    { challenge },
  );

/** Turns a bearer token into the caller's context, or null when the token is not one it knows. */
export type TokenVerifier = (token: string) => Promise<AuthContext | null>;

/**
 * API keys: the key's owner and scopes; a revoked key is unknown at once. With a cache, an active
 * key's lookup is reused until a revocation evicts it (or its short TTL ends).
 */
export function apiKeyVerifier(db: Knex, cache?: KeyCache): TokenVerifier {
  const load = async (hash: string): Promise<AuthContext | null> => {
    const key = await findActiveKeyByHash(db, hash);
    return key ? { userId: key.user_id, apiKeyId: key.id, scopes: key.scopes } : null;
  };
  return async (token) => {
    if (!looksLikeApiKey(token)) return null;
    const hash = hashApiKey(token);
    return cache ? cache.lookup(hash, () => load(hash)) : load(hash);
  };
}

/** Whether a bearer token is one of our OAuth access tokens (which REST does not take). */
export const isOAuthAccessToken = (token: string): boolean => looksLike('access', token);

/** The token of an `Authorization: Bearer <token>` header; null for any other shape. */
export function bearerToken(header: string): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null;
}

/** The 403 of a key without `scope`, naming it. */
export function missingScope(scope: string): AppError {
  return new AppError('forbidden', { error: `This API key lacks the required scope: ${scope}`, required_scope: scope });
}

/** Throws the 403 naming the scope when the caller lacks it (use cases check their own scope). */
export function assertScope(auth: Pick<AuthContext, 'scopes'>, scope: string): void {
  if (!auth.scopes.includes(scope)) throw missingScope(scope);
}
