import type { Response } from 'express';
import type { Knex } from '@mf/db';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { createApiKey } from '../../core/usecases/api-keys.usecase';
import { authorize } from './authorize';
import { ClientsStore } from '../../core/oauth/clients-store';
import { acceptedResource, comparableResource, type OAuthDeps, type OAuthUrls } from './deps';
import {
  deleteExpiredTokens,
  findCode,
  findLiveAccessToken,
  findToken,
  insertGrant,
  insertTokens,
  lockCode,
  lockRefreshToken,
  markCodeUsed,
  revokeGrant,
  revokeTokenRow,
} from '../../core/oauth/oauth.repository';
import { narrowedScopes } from '../../core/oauth/scopes';
import { hashSecret, LIFETIMES, looksLike, newSecret } from '../../core/oauth/tokens';

/** The backing API key's name: "OAuth: <client name>", within the 100 characters a key name may have. */
export function keyNameFor(client: OAuthClientInformationFull): string {
  const name = client.client_name?.trim() || client.client_id;
  const full = `OAuth: ${name}`;
  return full.length <= 100 ? full : `${full.slice(0, 99)}…`;
}

/** A failure found inside a transaction that must still revoke a grant once it has rolled back. */
interface Replay {
  revokeGrantId: number | null;
  message: string;
}

function isReplay(v: OAuthTokens | Replay): v is Replay {
  return 'revokeGrantId' in v;
}

/**
 * The gateway as its own OAuth 2.1 authorization server (the SDK's handlers call these methods).
 * Codes, tokens and grants live in gateway tables, hashed; each grant is backed by an API key of
 * the user, so everything keyed on api_key_id works for OAuth clients unchanged.
 */
export class GatewayOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: ClientsStore;
  private readonly db: Knex;

  constructor(
    private readonly deps: OAuthDeps,
    private readonly urls: OAuthUrls,
  ) {
    this.db = deps.db;
    this.clientsStore = new ClientsStore(deps.db);
  }

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    return authorize(this.deps, this.urls, client, params, res);
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const row = looksLike('code', code) ? await findCode(this.db, hashSecret(code)) : undefined;
    if (!row || row.client_id !== client.client_id) throw new InvalidGrantError('Invalid authorization code');
    if (row.used_at) {
      // OAuth 2.1 §4.1.3: a code used twice revokes what its first use produced.
      if (row.grant_id !== null) await revokeGrant(this.db, row.grant_id, this.now());
      throw new InvalidGrantError('Authorization code already used');
    }
    if (row.expires_at <= this.now()) throw new InvalidGrantError('Authorization code expired');
    return row.code_challenge;
  }

  /** Called by the SDK once the PKCE verifier matched the code's challenge. */
  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    if (!looksLike('code', code)) throw new InvalidGrantError('Invalid authorization code');
    const codeHash = hashSecret(code);
    const now = this.now();
    const outcome = await this.db.transaction(async (trx): Promise<OAuthTokens | Replay> => {
      const row = await lockCode(trx, codeHash);
      if (!row || row.client_id !== client.client_id) throw new InvalidGrantError('Invalid authorization code');
      if (row.used_at) return { revokeGrantId: row.grant_id, message: 'Authorization code already used' };
      if (row.expires_at <= now) throw new InvalidGrantError('Authorization code expired');
      // RFC 6749 §4.1.3: required, and identical, when the authorization request named it.
      if (redirectUri === undefined && row.redirect_uri_given)
        throw new InvalidGrantError('redirect_uri is required: the authorization request named one');
      if (redirectUri !== undefined && redirectUri !== row.redirect_uri)
        throw new InvalidGrantError('redirect_uri does not match the authorization request');
      this.checkResource(resource, row.resource);
      const key = await createApiKey(trx, row.user_id, row.scopes, keyNameFor(client));
      const grant = await insertGrant(trx, {
        client_id: client.client_id,
        user_id: row.user_id,
        api_key_id: key.id,
        scopes: key.scopes,
        resource: row.resource ?? resource?.href ?? null,
      });
      await markCodeUsed(trx, codeHash, grant.id, now);
      return this.issue(trx, grant.id, grant.scopes, grant.scopes, now);
    });
    return this.settle(outcome, now);
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    if (!looksLike('refresh', refreshToken)) throw new InvalidGrantError('Invalid refresh token');
    const tokenHash = hashSecret(refreshToken);
    const now = this.now();
    const outcome = await this.db.transaction(async (trx): Promise<OAuthTokens | Replay> => {
      const t = await lockRefreshToken(trx, tokenHash);
      if (!t || t.client_id !== client.client_id) throw new InvalidGrantError('Invalid refresh token');
      // A refresh token is revoked only by rotation or with its grant: either way, its reuse ends the grant.
      if (t.revoked_at)
        return { revokeGrantId: t.grant_id, message: 'Refresh token already used or revoked; the grant is revoked' };
      if (t.grant_revoked_at) throw new InvalidGrantError('The grant was revoked');
      // The key was revoked in the dashboard: the grant goes with it.
      if (t.key_revoked_at) return { revokeGrantId: t.grant_id, message: 'The grant was revoked' };
      if (t.expires_at <= now) throw new InvalidGrantError('Refresh token expired');
      this.checkResource(resource, t.resource);
      const accessScopes = narrowedScopes(t.grant_scopes, scopes);
      if (!accessScopes) throw new InvalidScopeError('A refresh may only ask for scopes the grant has');
      await revokeTokenRow(trx, tokenHash, now);
      await deleteExpiredTokens(trx, t.grant_id, now);
      return this.issue(trx, t.grant_id, accessScopes, t.grant_scopes, now);
    });
    return this.settle(outcome, now);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const t = looksLike('access', token)
      ? await findLiveAccessToken(this.db, hashSecret(token), this.now())
      : undefined;
    if (!t) throw new InvalidTokenError('Invalid, expired or revoked access token');
    return {
      token,
      clientId: t.client_id,
      scopes: t.scopes,
      expiresAt: Math.floor(t.expires_at.getTime() / 1000),
      resource: t.resource ? new URL(t.resource) : undefined,
      extra: { userId: t.user_id, apiKeyId: t.api_key_id },
    };
  }

  /** RFC 7009: any token of the client ends its whole grant; an unknown or foreign token changes nothing. */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const { token } = request;
    if (!looksLike('access', token) && !looksLike('refresh', token)) return;
    const t = await findToken(this.db, hashSecret(token));
    if (!t || t.client_id !== client.client_id) return;
    await revokeGrant(this.db, t.grant_id, this.now());
  }

  private checkResource(requested: URL | undefined, bound: string | null): void {
    if (!requested) return;
    if (!acceptedResource(this.urls, requested.href))
      throw new InvalidTargetError(`This server does not serve the resource ${requested.href}`);
    if (bound !== null && comparableResource(bound) !== comparableResource(requested.href))
      throw new InvalidTargetError('resource does not match the authorization request');
  }

  private async issue(
    trx: Knex.Transaction,
    grantId: number,
    accessScopes: string[],
    grantScopes: string[],
    now: Date,
  ): Promise<OAuthTokens> {
    const access = newSecret('access');
    const refresh = newSecret('refresh');
    await insertTokens(trx, [
      {
        token_hash: hashSecret(access),
        grant_id: grantId,
        kind: 'access',
        scopes: accessScopes,
        created_at: now,
        expires_at: new Date(now.getTime() + LIFETIMES.accessMs),
      },
      // The refresh token keeps the grant's full scopes: a narrowed refresh narrows one access token only.
      {
        token_hash: hashSecret(refresh),
        grant_id: grantId,
        kind: 'refresh',
        scopes: grantScopes,
        created_at: now,
        expires_at: new Date(now.getTime() + LIFETIMES.refreshMs),
      },
    ]);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: LIFETIMES.accessMs / 1000,
      refresh_token: refresh,
      scope: accessScopes.join(' '),
    };
  }

  private async settle(outcome: OAuthTokens | Replay, now: Date): Promise<OAuthTokens> {
    if (!isReplay(outcome)) return outcome;
    if (outcome.revokeGrantId !== null) await revokeGrant(this.db, outcome.revokeGrantId, now);
    throw new InvalidGrantError(outcome.message);
  }
}
