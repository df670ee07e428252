import type { Migration } from '@mf/db';

export const exportRuns: Migration = {
  name: '0001_export_runs',
  async up(knex) {
    await knex.raw(`
      -- One row per export started: the per-user rate window counts them, operators read the rest.
      CREATE TABLE export_runs (
        id            text PRIMARY KEY,
        user_id       bigint NOT NULL,
        project_id    text NOT NULL,
        video_id      text NOT NULL,
        status        text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
        -- One of the contract's export error codes when failed.
        error_code    text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        finished_at   timestamptz,
        -- Of the output, from ffprobe.
        duration_sec  double precision,
        wall_ms       integer,
        cache_hits    integer NOT NULL DEFAULT 0,
        cache_misses  integer NOT NULL DEFAULT 0
      );
      CREATE INDEX export_runs_user_created ON export_runs (user_id, created_at);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE export_runs;');
  },
};
