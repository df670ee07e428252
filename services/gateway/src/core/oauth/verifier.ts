import type { Knex } from '@mf/db';
import type { AuthContext } from '../auth/auth-context';
import { findLiveAccessToken } from './oauth.repository';
import { hashSecret, looksLike } from './tokens';

/**
 * Resolves an OAuth access token to the auth context of its grant: the user, the grant's backing
 * API key (so rate limits and usage records count it like the key) and the token's scopes. Null
 * for anything else, cheaply for strings that are not our access tokens (an API key, say).
 */
export function oauthTokenVerifier(
  db: Knex,
  now: () => Date = () => new Date(),
): (token: string) => Promise<AuthContext | null> {
  return async (token) => {
    if (!looksLike('access', token)) return null;
    const t = await findLiveAccessToken(db, hashSecret(token), now());
    return t ? { userId: t.user_id, apiKeyId: t.api_key_id, scopes: t.scopes } : null;
  };
}
