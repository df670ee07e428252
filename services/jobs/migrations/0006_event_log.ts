import type { Migration } from '@mf/db';

/**
 * The outbox becomes the per-user event log (docs/events.md): its rows name their user and job so
 * the log can be read per user, in id order, for as long as jobs are kept. Jobs carry their current
 * progress (0-100, null when the provider cannot tell), the upstream queue position when known, and
 * when the last progress event was written (at most one a second per job).
 */
export const eventLog: Migration = {
  name: '0006_event_log',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE jobs ADD COLUMN progress smallint CHECK (progress BETWEEN 0 AND 100);
      ALTER TABLE jobs ADD COLUMN queue_position integer;
      ALTER TABLE jobs ADD COLUMN progress_event_at timestamptz;
      ALTER TABLE outbox ADD COLUMN user_id bigint;
      ALTER TABLE outbox ADD COLUMN job_id text;
      UPDATE outbox SET user_id = (payload->>'user_id')::bigint, job_id = payload->>'job_id';
      CREATE INDEX outbox_by_user ON outbox (user_id, id);
      CREATE INDEX outbox_by_job ON outbox (job_id, id);
    `);
  },
  async down(knex) {
    await knex.raw(`
      DROP INDEX outbox_by_job; DROP INDEX outbox_by_user;
      ALTER TABLE outbox DROP COLUMN job_id; ALTER TABLE outbox DROP COLUMN user_id;
      ALTER TABLE jobs DROP COLUMN progress_event_at; ALTER TABLE jobs DROP COLUMN queue_position; ALTER TABLE jobs DROP COLUMN progress;
    `);
  },
};
