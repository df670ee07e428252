import type { Knex } from '@mf/db';
import type { CookiePolicy } from '../dashboard/session-cookie';
import type { SessionStore } from '../../core/accounts/session-store';

/** What the OAuth endpoints need, passed in from main.ts. */
export interface OAuthDeps {
  db: Knex;
  /** The dashboard's sessions: the consent page needs a signed-in user. */
  sessions: SessionStore;
  cookies: CookiePolicy;
  /** The issuer and the base of every advertised URL. */
  publicBaseUrl: string;
  /** The SDK handlers' per-IP rate limits; false turns them off (unit tests). */
  rateLimit?: false;
  now?: () => Date;
}

/** The URLs the metadata documents advertise, all built from PUBLIC_BASE_URL. */
export interface OAuthUrls {
  /** The authorization server's issuer identifier: PUBLIC_BASE_URL as a URL (RFC 8414). */
  issuer: string;
  /** The protected resource: the MCP endpoint. */
  mcpResource: string;
  /** What the root protected-resource document names: the gateway's origin. */
  rootResource: string;
  authorize: string;
  token: string;
  register: string;
  revoke: string;
  mcpResourceMetadata: string;
}

export const MCP_PATH = '/api/mcp';
export const PRM_PATH = '/.well-known/oauth-protected-resource';
export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

export function oauthUrls(publicBaseUrl: string): OAuthUrls {
  const issuer = new URL(publicBaseUrl).href;
  const base = issuer.replace(/\/+$/, '');
  return {
    issuer,
    mcpResource: `${base}${MCP_PATH}`,
    rootResource: issuer,
    authorize: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    register: `${base}/oauth/register`,
    revoke: `${base}/oauth/revoke`,
    mcpResourceMetadata: `${base}${PRM_PATH}${MCP_PATH}`,
  };
}

/** A resource indicator (RFC 8707) without fragment and one trailing slash, for comparison. */
export function comparableResource(value: string): string {
  const hash = value.indexOf('#');
  return (hash === -1 ? value : value.slice(0, hash)).replace(/\/$/, '');
}

/** Whether a requested resource names this gateway: the MCP endpoint, or the origin the root metadata names. */
export function acceptedResource(urls: OAuthUrls, resource: string): boolean {
  const r = comparableResource(resource);
  return r === comparableResource(urls.mcpResource) || r === comparableResource(urls.rootResource);
}
