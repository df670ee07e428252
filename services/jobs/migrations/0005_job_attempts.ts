import type { Migration } from '@mf/db';

/**
 * Routing with fallback (docs/providers.md): a job records its routes when submitted, the number of
 * its current attempt, and every attempt in job_attempts (provider, upstream model, upstream id,
 * start, end, outcome, error). Money stays on the job: one charge, one outcome, whatever the attempts.
 * A job in flight from before has made one attempt, its provider's.
 */
export const jobAttempts: Migration = {
  name: '0005_job_attempts',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE jobs ADD COLUMN attempt integer NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN routes jsonb NOT NULL DEFAULT '[]';
      -- The current attempt fails (and the next route is tried) when it is still running at this time.
      ALTER TABLE jobs ADD COLUMN attempt_deadline_at timestamptz;
      CREATE TABLE job_attempts (
        job_id         text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        n              integer NOT NULL CHECK (n >= 1),
        provider       text NOT NULL,
        provider_type  text,
        upstream_model text,
        upstream_id    text,
        -- submitting: recorded before the upstream call; running: the upstream has it; the rest end it.
        state          text NOT NULL CHECK (state IN ('submitting', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'abandoned', 'skipped')),
        error          text,
        progress       real,
        started_at     timestamptz NOT NULL DEFAULT now(),
        ended_at       timestamptz,
        PRIMARY KEY (job_id, n)
      );
      UPDATE jobs SET attempt = 1 WHERE provider_request_id IS NOT NULL;
      INSERT INTO job_attempts (job_id, n, provider, upstream_model, upstream_id, state, started_at, ended_at)
        SELECT id, 1, provider, upstream_model, provider_request_id,
               CASE status WHEN 'processing' THEN 'running' WHEN 'completed' THEN 'succeeded' WHEN 'cancelled' THEN 'cancelled' ELSE 'failed' END,
               created_at, completed_at
          FROM jobs WHERE provider_request_id IS NOT NULL;
    `);
  },
  async down(knex) {
    await knex.raw(
      'DROP TABLE job_attempts; ALTER TABLE jobs DROP COLUMN routes; ALTER TABLE jobs DROP COLUMN attempt_deadline_at; ALTER TABLE jobs DROP COLUMN attempt;',
    );
  },
};
