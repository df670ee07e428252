import type { RequestHandler } from 'express';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { hashApiKey, looksLikeApiKey } from '../auth/api-key';
import { findActiveKeyByHash } from '../repositories/api-keys.repository';

export interface AuthContext {
  userId: number;
  apiKeyId: number;
  scopes: string[];
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` for every request that passed it. */
      auth?: AuthContext;
    }
  }
}

const challenge = { 'WWW-Authenticate': 'Bearer realm="api"' };
export const MISSING_AUTH = (): AppError => new AppError(401, { error: 'Missing Authorization header' }, challenge);
export const INVALID_KEY = (): AppError => new AppError(401, { error: 'Invalid or revoked API key' }, challenge);

/** Turns a bearer token into the caller's context, or null when the token is not one it knows. */
export type TokenVerifier = (token: string) => Promise<AuthContext | null>;

/** API keys: the key's owner and scopes; a revoked key is unknown at once. */
export function apiKeyVerifier(db: Knex): TokenVerifier {
  return async (token) => {
    if (!looksLikeApiKey(token)) return null;
    const key = await findActiveKeyByHash(db, hashApiKey(token));
    return key ? { userId: key.user_id, apiKeyId: key.id, scopes: key.scopes } : null;
  };
}

/** The token of an `Authorization: Bearer <token>` header; null for any other shape. */
export function bearerToken(header: string): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null;
}

/** Resolves `Authorization: Bearer <key>` to the key's owner and scopes. Revoked keys fail at once. */
export function authenticate(db: Knex): RequestHandler {
  const verify = apiKeyVerifier(db);
  return async (req, _res, next) => {
    const header = req.header('authorization');
    if (header === undefined || header.trim() === '') return next(MISSING_AUTH());
    const token = bearerToken(header);
    const auth = token === null ? null : await verify(token);
    if (!auth) return next(INVALID_KEY());
    req.auth = auth;
    next();
  };
}

/** The 403 of a key without `scope`, naming it. */
export function missingScope(scope: string): AppError {
  return new AppError(403, { error: `This API key lacks the required scope: ${scope}`, required_scope: scope });
}

/** Throws the 403 naming the scope when the caller lacks it (use cases check their own scope). */
export function assertScope(auth: AuthContext, scope: string): void {
  if (!auth.scopes.includes(scope)) throw missingScope(scope);
}

/** 403 naming the scope when the key lacks it. */
export function requireScope(scope: string): RequestHandler {
  return (req, _res, next) => {
    if (req.auth?.scopes.includes(scope)) return next();
    next(missingScope(scope));
  };
}

/** The authenticated context of a request behind `authenticate`. */
export function authOf(req: { auth?: AuthContext }): AuthContext {
  if (!req.auth) throw AppError.internal();
  return req.auth;
}
