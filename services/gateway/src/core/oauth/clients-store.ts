import type { Knex } from '@mf/db';
import { textProblem } from '@mf/http';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { findClient, insertClient } from './oauth.repository';
import { redirectUrisProblem } from './redirect-uris';

const MAX_CLIENT_NAME = 200;
// client_ids are the SDK's random UUIDs: anything longer never reaches the database.
const MAX_CLIENT_ID = 100;

/**
 * Dynamic client registration (RFC 7591) into gateway.oauth_clients. Every client is public: a
 * requested client_secret_* method is replaced by "none" and no secret is kept (RFC 7591 §3.2.1
 * lets the server change metadata), so PKCE is what proves the caller at the token endpoint.
 */
export class ClientsStore implements OAuthRegisteredClientsStore {
  constructor(private readonly db: Knex) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    // A NUL (client_id=%00 in a token request's form) would make Postgres fail the query: a 500.
    if (clientId.length === 0 || clientId.length > MAX_CLIENT_ID || textProblem(clientId) !== null) return undefined;
    return findClient(this.db, clientId);
  }

  async registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    // The SDK's handler generates the id before calling us (clientIdGeneration defaults to true).
    const withId = client as OAuthClientInformationFull;
    if (!withId.client_id) throw new Error('client_id was not generated');
    const problem = redirectUrisProblem(withId.redirect_uris);
    // RFC 7591 §3.2.2 names this error for a bad redirect URI.
    if (problem) throw new CustomOAuthError('invalid_redirect_uri', problem);
    if (withId.grant_types && !withId.grant_types.includes('authorization_code')) {
      throw new InvalidClientMetadataError('grant_types must include authorization_code');
    }
    if (withId.response_types && !withId.response_types.every((t) => t === 'code')) {
      throw new InvalidClientMetadataError('only the "code" response type is supported');
    }
    if (withId.client_name !== undefined && withId.client_name.length > MAX_CLIENT_NAME) {
      throw new InvalidClientMetadataError(`client_name must be at most ${MAX_CLIENT_NAME} characters`);
    }
    const { client_secret: _secret, client_secret_expires_at: _expires, ...rest } = withId;
    const stored: OAuthClientInformationFull = {
      ...rest,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    await insertClient(this.db, stored);
    return stored;
  }
}
