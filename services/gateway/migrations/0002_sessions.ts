import type { Migration } from '@mf/db';

export const sessions: Migration = {
  name: '0002_sessions',
  async up(knex) {
    await knex.raw(`
      -- Dashboard sign-in sessions. The cookie holds a random token; only its SHA-256 is stored,
      -- so a leaked table cannot be replayed as cookies.
      CREATE TABLE sessions (
        id_hash      text PRIMARY KEY,
        user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        -- The synchroniser token the dashboard sends back in X-CSRF-Token.
        csrf_token   text NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        user_agent   text
      );
      CREATE INDEX sessions_user ON sessions (user_id);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE sessions;');
  },
};
