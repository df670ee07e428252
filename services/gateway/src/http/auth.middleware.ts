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

/** Resolves `Authorization: Bearer <key>` to the key's owner and scopes. Revoked keys fail at once. */
export function authenticate(db: Knex): RequestHandler {
  return async (req, _res, next) => {
    const header = req.header('authorization');
    if (header === undefined || header.trim() === '') return next(MISSING_AUTH());
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !looksLikeApiKey(match[1])) return next(INVALID_KEY());
    const key = await findActiveKeyByHash(db, hashApiKey(match[1]));
    if (!key) return next(INVALID_KEY());
    req.auth = { userId: key.user_id, apiKeyId: key.id, scopes: key.scopes };
    next();
  };
}

/** 403 naming the scope when the key lacks it. */
export function requireScope(scope: string): RequestHandler {
  return (req, _res, next) => {
    if (req.auth?.scopes.includes(scope)) return next();
    next(new AppError(403, { error: `This API key lacks the required scope: ${scope}`, required_scope: scope }));
  };
}

/** The authenticated context of a request behind `authenticate`. */
export function authOf(req: { auth?: AuthContext }): AuthContext {
  if (!req.auth) throw AppError.internal();
  return req.auth;
}
