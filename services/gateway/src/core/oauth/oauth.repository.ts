import { rowOf, rowsOf, type Knex } from '@mf/db';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { revokeKey } from '../repositories/api-keys.repository';

/** The only module that speaks SQL about OAuth clients, codes, grants and tokens. */

export interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  /** The authorization request named redirect_uri (so the token request must repeat it). */
  redirect_uri_given: boolean;
  code_challenge: string;
  scopes: string[];
  resource: string | null;
  expires_at: Date;
  used_at: Date | null;
  grant_id: number | null;
}

export interface GrantRow {
  id: number;
  client_id: string;
  user_id: number;
  api_key_id: number;
  scopes: string[];
  resource: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export type TokenKind = 'access' | 'refresh';

export interface NewToken {
  token_hash: string;
  grant_id: number;
  kind: TokenKind;
  scopes: string[];
  created_at: Date;
  expires_at: Date;
}

/** A token with what decides whether it still works: its grant and the grant's API key. */
export interface TokenWithGrant {
  token_hash: string;
  kind: TokenKind;
  scopes: string[];
  expires_at: Date;
  revoked_at: Date | null;
  grant_id: number;
  client_id: string;
  user_id: number;
  api_key_id: number;
  grant_scopes: string[];
  resource: string | null;
  grant_revoked_at: Date | null;
  key_revoked_at: Date | null;
}

export async function insertClient(db: Knex, client: OAuthClientInformationFull): Promise<void> {
  await db('oauth_clients').insert({
    client_id: client.client_id,
    client_name: client.client_name ?? null,
    metadata: JSON.stringify(client),
  });
}

export async function findClient(db: Knex, clientId: string): Promise<OAuthClientInformationFull | undefined> {
  const row = await rowOf<{ metadata: unknown }>(db('oauth_clients').first('metadata').where({ client_id: clientId }));
  return row ? (row.metadata as OAuthClientInformationFull) : undefined;
}

export async function insertCode(db: Knex, row: Omit<CodeRow, 'used_at' | 'grant_id'>): Promise<void> {
  await db('oauth_codes').insert(row);
}

/** Codes past their lifetime: a reuse after expiry is simply an unknown code. */
export async function deleteExpiredCodes(db: Knex, now: Date): Promise<void> {
  await db('oauth_codes').where('expires_at', '<=', now).delete();
}

/** The code, locked until the transaction ends, so two exchanges of it run one after the other. */
export async function lockCode(trx: Knex.Transaction, codeHash: string): Promise<CodeRow | undefined> {
  return rowOf<CodeRow>(trx('oauth_codes').first('*').where({ code_hash: codeHash }).forUpdate());
}

export async function findCode(db: Knex, codeHash: string): Promise<CodeRow | undefined> {
  return rowOf<CodeRow>(db('oauth_codes').first('*').where({ code_hash: codeHash }));
}

export async function markCodeUsed(trx: Knex.Transaction, codeHash: string, grantId: number, now: Date): Promise<void> {
  await trx('oauth_codes').update({ used_at: now, grant_id: grantId }).where({ code_hash: codeHash });
}

export async function insertGrant(
  trx: Knex.Transaction,
  grant: Pick<GrantRow, 'client_id' | 'user_id' | 'api_key_id' | 'scopes' | 'resource'>,
): Promise<GrantRow> {
  const [row] = await rowsOf<GrantRow>(trx('oauth_grants').insert(grant).returning('*'));
  return row;
}

export async function insertTokens(db: Knex, tokens: NewToken[]): Promise<void> {
  await db('oauth_tokens').insert(tokens);
}

const TOKEN_WITH_GRANT = [
  'oauth_tokens.token_hash',
  'oauth_tokens.kind',
  'oauth_tokens.scopes',
  'oauth_tokens.expires_at',
  'oauth_tokens.revoked_at',
  'oauth_tokens.grant_id',
  'oauth_grants.client_id',
  'oauth_grants.user_id',
  'oauth_grants.api_key_id',
  'oauth_grants.scopes as grant_scopes',
  'oauth_grants.resource',
  'oauth_grants.revoked_at as grant_revoked_at',
  'api_keys.revoked_at as key_revoked_at',
];

function tokenWithGrant(db: Knex) {
  return db('oauth_tokens')
    .first(TOKEN_WITH_GRANT)
    .join('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .join('api_keys', 'api_keys.id', 'oauth_grants.api_key_id');
}

export async function findToken(db: Knex, tokenHash: string): Promise<TokenWithGrant | undefined> {
  return rowOf<TokenWithGrant>(tokenWithGrant(db).where('oauth_tokens.token_hash', tokenHash));
}

/** A refresh token, locked: two refreshes with the same token cannot both rotate it. */
export async function lockRefreshToken(trx: Knex.Transaction, tokenHash: string): Promise<TokenWithGrant | undefined> {
  return rowOf<TokenWithGrant>(
    tokenWithGrant(trx)
      .where('oauth_tokens.token_hash', tokenHash)
      .andWhere('oauth_tokens.kind', 'refresh')
      .forUpdate('oauth_tokens'),
  );
}

/**
 * The hot path of every OAuth-authenticated request: one lookup by hash, valid only while the
 * token, its grant and the grant's API key all are.
 */
export async function findLiveAccessToken(db: Knex, tokenHash: string, now: Date): Promise<TokenWithGrant | undefined> {
  return rowOf<TokenWithGrant>(
    tokenWithGrant(db)
      .where('oauth_tokens.token_hash', tokenHash)
      .andWhere('oauth_tokens.kind', 'access')
      .andWhere('oauth_tokens.expires_at', '>', now)
      .whereNull('oauth_tokens.revoked_at')
      .whereNull('oauth_grants.revoked_at')
      .whereNull('api_keys.revoked_at'),
  );
}

export async function revokeTokenRow(trx: Knex.Transaction, tokenHash: string, now: Date): Promise<void> {
  await trx('oauth_tokens').update({ revoked_at: now }).where({ token_hash: tokenHash }).whereNull('revoked_at');
}

/** Tokens of the grant past their lifetime (a rotated refresh token is kept until then, to catch its reuse). */
export async function deleteExpiredTokens(trx: Knex.Transaction, grantId: number, now: Date): Promise<void> {
  await trx('oauth_tokens').where({ grant_id: grantId }).andWhere('expires_at', '<=', now).delete();
}

/** Ends a grant: the grant, every token of it and its API key are revoked together. Idempotent. */
export async function revokeGrant(db: Knex, grantId: number, now: Date): Promise<void> {
  await db.transaction(async (trx) => {
    const [grant] = await rowsOf<{ api_key_id: number }>(
      trx('oauth_grants')
        .update({ revoked_at: trx.raw('COALESCE(revoked_at, ?)', [now]) })
        .where({ id: grantId })
        .returning(['api_key_id']),
    );
    if (!grant) return;
    await trx('oauth_tokens').update({ revoked_at: now }).where({ grant_id: grantId }).whereNull('revoked_at');
    await revokeKey(trx, grant.api_key_id);
  });
}
