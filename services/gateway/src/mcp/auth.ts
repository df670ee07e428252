import type { RequestHandler } from 'express';
import { AppError, type AuthChallenge } from '@mf/errors';
import { bearerToken, INVALID_KEY, MISSING_AUTH, type TokenVerifier } from '../http/auth.middleware';

export { apiKeyVerifier, type TokenVerifier } from '../http/auth.middleware';

/** Where OAuth clients discover how to get a token for this endpoint (RFC 9728). */
export function resourceMetadataUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/api/mcp`;
}

/**
 * `Authorization: Bearer <token>` for the MCP endpoint: each verifier is asked in turn (API keys,
 * OAuth access tokens, ...), the first that knows the token wins. The 401s are the REST API's, with
 * a challenge pointing MCP clients at the protected-resource metadata so they can start OAuth.
 */
export function mcpAuthenticate(verifiers: readonly TokenVerifier[], metadataUrl: string): RequestHandler {
  const challenge = (error?: string): AuthChallenge => ({
    scheme: 'Bearer',
    params: [['resource_metadata', metadataUrl], ...(error ? [['error', error] as const] : [])],
  });
  return async (req, _res, next) => {
    const header = req.header('authorization');
    if (header === undefined || header.trim() === '')
      return next(new AppError('unauthenticated', MISSING_AUTH().body, { challenge: challenge() }));
    const token = bearerToken(header);
    if (token !== null) {
      for (const verify of verifiers) {
        const auth = await verify(token);
        if (auth) {
          req.auth = auth;
          return next();
        }
      }
    }
    next(new AppError('unauthenticated', INVALID_KEY().body, { challenge: challenge('invalid_token') }));
  };
}
