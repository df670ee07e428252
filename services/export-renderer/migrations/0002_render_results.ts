import type { Migration } from '@mf/db';

export const renderResults: Migration = {
  name: '0002_render_results',
  async up(knex) {
    await knex.raw(`
      -- Finished exports by content address (render-key in src/render/cache-keys.ts), per user: an
      -- export whose timeline resolves to the same key answers with the stored file, unchanged.
      CREATE TABLE render_results (
        user_id       bigint NOT NULL,
        render_key    text NOT NULL,
        output_key    text NOT NULL,
        -- The stored object's ETag when it was written: a file since replaced or deleted is not reused.
        output_etag   text NOT NULL,
        bytes         bigint NOT NULL,
        duration_sec  double precision NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        last_used_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, render_key)
      );
      ALTER TABLE export_runs
        -- Answered from render_results (nothing rendered).
        ADD COLUMN reused boolean NOT NULL DEFAULT false,
        -- Video clips copied as they were instead of encoded.
        ADD COLUMN clips_copied integer NOT NULL DEFAULT 0;
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE render_results; ALTER TABLE export_runs DROP COLUMN reused, DROP COLUMN clips_copied;');
  },
};
