import type { Migration } from '@mf/db';

/**
 * Background exports (POST .../export with Prefer: respond-async): one row each, from rendering to
 * completed (with its asset) or failed (with the blocking export's error body). Progress only rises.
 */
export const backgroundExports: Migration = {
  name: '0002_exports',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE exports (
        id           text PRIMARY KEY,
        user_id      bigint NOT NULL,
        project_id   text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        video_id     text NOT NULL,
        status       text NOT NULL CHECK (status IN ('rendering', 'completed', 'failed')),
        progress     smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        asset_id     text,
        video_url    text,
        duration_sec double precision,
        error        jsonb,
        created_at   timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE INDEX exports_project ON exports (project_id, created_at DESC);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE exports');
  },
};
