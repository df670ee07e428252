import type { RequestHandler } from 'express';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import type { KeyCache } from '../core/auth/key-cache';
import {
  apiKeyVerifier,
  bearerToken,
  INVALID_KEY,
  isOAuthAccessToken,
  MISSING_AUTH,
  OAUTH_TOKEN_ON_REST,
  type AuthContext,
} from '../core/auth/auth-context';

// The core's auth vocabulary, for the adapters.
export {
  apiKeyVerifier,
  assertScope,
  bearerToken,
  INVALID_KEY,
  MISSING_AUTH,
  missingScope,
  type AuthContext,
  type TokenVerifier,
} from '../core/auth/auth-context';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `authenticate` for every request that passed it. */
      auth?: AuthContext;
    }
  }
}

/** Resolves `Authorization: Bearer <key>` to the key's owner and scopes. Revoked keys fail at once. */
export function authenticate(db: Knex, cache?: KeyCache): RequestHandler {
  const verify = apiKeyVerifier(db, cache);
  return async (req, _res, next) => {
    const header = req.header('authorization');
    if (header === undefined || header.trim() === '') return next(MISSING_AUTH());
    const token = bearerToken(header);
    if (token !== null && isOAuthAccessToken(token)) return next(OAUTH_TOKEN_ON_REST());
    const auth = token === null ? null : await verify(token);
    if (!auth) return next(INVALID_KEY());
    req.auth = auth;
    next();
  };
}

/** The authenticated context of a request behind `authenticate`. */
export function authOf(req: { auth?: AuthContext }): AuthContext {
  if (!req.auth) throw AppError.internal();
  return req.auth;
}
