import type { Migration } from '@mf/db';

export const usersKeysUsage: Migration = {
  name: '0001_users_keys_usage',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE users (
        id            bigserial PRIMARY KEY,
        email         text NOT NULL,
        password_hash text,
        role          text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
        created_at    timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email ON users (lower(email));

      CREATE TABLE api_keys (
        id           bigserial PRIMARY KEY,
        user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name         text NOT NULL DEFAULT '',
        -- The first characters of the key, shown in listings so a user can tell keys apart.
        prefix       text NOT NULL,
        -- SHA-256 of the full key. Keys are 190+ bits of randomness, so a fast hash is safe.
        key_hash     text NOT NULL UNIQUE,
        scopes       text[] NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at   timestamptz
      );
      CREATE INDEX api_keys_user ON api_keys (user_id);

      -- One row per authenticated API request (and, later, per webhook attempt).
      CREATE TABLE usage (
        id          bigserial PRIMARY KEY,
        api_key_id  bigint NOT NULL,
        user_id     bigint NOT NULL,
        method      text NOT NULL,
        path        text NOT NULL,
        status      smallint NOT NULL,
        duration_ms integer NOT NULL,
        request_id  text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX usage_key_time ON usage (api_key_id, created_at DESC);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE usage; DROP TABLE api_keys; DROP TABLE users;');
  },
};
