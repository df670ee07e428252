import { Router } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { jsonBody } from '@mf/http';
import { SCOPES } from '../../core/auth/scopes';
import { loadSession } from '../dashboard/session.middleware';
import { AS_METADATA_PATH, MCP_PATH, oauthUrls, PRM_PATH, type OAuthDeps, type OAuthUrls } from './deps';
import { GatewayOAuthProvider } from './provider';

/** Client metadata is a few hundred bytes; the SDK's own parser allowed 100 kB. */
const REGISTRATION_BODY_LIMIT = '64kb';

export function authorizationServerMetadata(urls: OAuthUrls): OAuthMetadata {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // Public clients only: PKCE, not a secret, proves the caller.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
  };
}

export function protectedResourceMetadata(urls: OAuthUrls, resource: string): OAuthProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Mediaforge MCP',
  };
}

/**
 * The gateway's OAuth 2.1 authorization server, as the MCP authorization spec describes it, built
 * from the SDK's handlers: discovery documents, dynamic registration, authorize (sign-in and
 * consent), token, revoke. Not the SDK's mcpAuthRouter: that one puts the endpoints at /authorize
 * etc. (not /oauth/...) and throws at start-up for an http issuer that is not localhost, which a
 * self-hosted gateway on a LAN may well have. Mount at the application root.
 */
export function oauthRouter(deps: OAuthDeps): Router {
  const urls = oauthUrls(deps.publicBaseUrl);
  const provider = new GatewayOAuthProvider(deps, urls);
  const rateLimit = deps.rateLimit;
  const router = Router();

  // RFC 9728: the path-specific document first (router.use matches prefixes).
  router.use(`${PRM_PATH}${MCP_PATH}`, metadataHandler(protectedResourceMetadata(urls, urls.mcpResource)));
  router.use(PRM_PATH, metadataHandler(protectedResourceMetadata(urls, urls.rootResource)));
  router.use(AS_METADATA_PATH, metadataHandler(authorizationServerMetadata(urls)));

  // Parsed by us first (the SDK's own parser then leaves it alone): the fleet's rules for hostile
  // text (a NUL in client_name would fail the insert with a 500) and nesting apply here too. A body
  // that is not an object is left to the SDK, which answers it as RFC 7591 says (invalid_client_metadata).
  router.use(
    '/oauth/register',
    jsonBody(REGISTRATION_BODY_LIMIT, { objectOnly: false }),
    clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit }),
  );
  // The dashboard session decides who is signing in; the SDK then validates the request.
  router.use(
    '/oauth/authorize',
    loadSession(deps.sessions, deps.cookies),
    authorizationHandler({ provider, rateLimit }),
  );
  router.use('/oauth/token', tokenHandler({ provider, rateLimit }));
  router.use('/oauth/revoke', revocationHandler({ provider, rateLimit }));
  return router;
}
