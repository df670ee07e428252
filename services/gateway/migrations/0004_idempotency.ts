import type { Migration } from '@mf/db';

export const idempotency: Migration = {
  name: '0004_idempotency',
  async up(knex) {
    await knex.raw(`
      -- Idempotency-Key records (docs/api-behaviour.md): one per user and key, so a retried POST
      -- replays the first answer instead of running again. Scoped per user: every key of a user
      -- shares them.
      CREATE TABLE idempotency_keys (
        user_id         bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key             text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
        -- sha256 of method, path and canonical JSON body: the same key with another request is a 422.
        fingerprint     text NOT NULL,
        state           text NOT NULL CHECK (state IN ('in_progress', 'done')),
        response_status smallint,
        -- json, not jsonb: jsonb reorders object keys, and a replay must be byte for byte the first answer.
        response_body   json,
        -- The lease of the request running it; past it, the owner is presumed dead and a waiter takes over.
        locked_until    timestamptz NOT NULL,
        -- Which execution holds the lease, so a presumed-dead owner that wakes up cannot overwrite a takeover's answer.
        owner           text NOT NULL,
        created_at      timestamptz NOT NULL,
        expires_at      timestamptz NOT NULL,
        PRIMARY KEY (user_id, key),
        CHECK (state = 'in_progress' OR response_status IS NOT NULL)
      );
      CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE idempotency_keys;');
  },
};
