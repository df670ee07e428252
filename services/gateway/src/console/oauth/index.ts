/** The gateway's OAuth 2.1 authorization server for MCP clients (docs/oauth.md). */
import { oauthUrls } from './deps';

export { oauthRouter } from './router';
export { oauthTokenVerifier } from '../../core/oauth/verifier';
export { oauthUrls, type OAuthDeps } from './deps';

/** The protected-resource metadata URL the MCP endpoint's 401 names (WWW-Authenticate resource_metadata). */
export function mcpResourceMetadataUrl(publicBaseUrl: string): string {
  return oauthUrls(publicBaseUrl).mcpResourceMetadata;
}
