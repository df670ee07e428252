import type { Migration } from '@mf/db';

export const oauth: Migration = {
  name: '0003_oauth',
  async up(knex) {
    await knex.raw(`
      -- Clients registered through dynamic client registration (RFC 7591). Public clients only:
      -- no secret is ever issued, PKCE proves the caller.
      CREATE TABLE oauth_clients (
        client_id   text PRIMARY KEY,
        client_name text,
        -- The registration as answered to the client (OAuthClientInformationFull).
        metadata    jsonb NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );

      -- One approved authorization: a user let a client act with some scopes. Backed by an API key
      -- of the user, so rate limits, usage records, webhooks and jobs see an ordinary key.
      CREATE TABLE oauth_grants (
        id          bigserial PRIMARY KEY,
        client_id   text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        api_key_id  bigint NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        scopes      text[] NOT NULL,
        resource    text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        revoked_at  timestamptz
      );
      CREATE INDEX oauth_grants_user ON oauth_grants (user_id);
      CREATE INDEX oauth_grants_key ON oauth_grants (api_key_id);

      -- Authorization codes, stored as SHA-256. The grant exists only once the code is exchanged;
      -- grant_id is kept so that a second use of the code can revoke what the first one produced.
      CREATE TABLE oauth_codes (
        code_hash      text PRIMARY KEY,
        client_id      text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        user_id        bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        redirect_uri   text NOT NULL,
        code_challenge text NOT NULL,
        scopes         text[] NOT NULL,
        resource       text,
        expires_at     timestamptz NOT NULL,
        used_at        timestamptz,
        grant_id       bigint REFERENCES oauth_grants(id) ON DELETE CASCADE
      );
      CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

      -- Access and refresh tokens, stored as SHA-256. A rotated refresh token is revoked, not
      -- deleted, until it expires: presenting it again revokes the whole grant.
      CREATE TABLE oauth_tokens (
        token_hash  text PRIMARY KEY,
        grant_id    bigint NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
        kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
        scopes      text[] NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz NOT NULL,
        revoked_at  timestamptz
      );
      CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
    `);
  },
  async down(knex) {
    await knex.raw(
      'DROP TABLE oauth_tokens; DROP TABLE oauth_codes; DROP TABLE oauth_grants; DROP TABLE oauth_clients;',
    );
  },
};
