import type { Migration } from '@mf/db';

/**
 * Who made a job (source: api, editor or dashboard; editor jobs name their project), who cancelled
 * it (the refund's ledger line says so), and playground jobs made with the dashboard session have
 * no key (docs/jobs.md).
 */
export const jobOrigin: Migration = {
  name: '0004_job_origin',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE jobs ALTER COLUMN api_key_id DROP NOT NULL;
      ALTER TABLE jobs ADD COLUMN source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'editor', 'dashboard'));
      ALTER TABLE jobs ADD COLUMN project_id text;
      ALTER TABLE jobs ADD COLUMN cancelled_by text CHECK (cancelled_by IN ('user', 'editor'));
      ALTER TABLE jobs ADD CONSTRAINT jobs_key_unless_dashboard CHECK (api_key_id IS NOT NULL OR source = 'dashboard');
    `);
  },
  async down(knex) {
    await knex.raw(`
      DELETE FROM jobs WHERE api_key_id IS NULL;
      ALTER TABLE jobs DROP CONSTRAINT jobs_key_unless_dashboard;
      ALTER TABLE jobs DROP COLUMN cancelled_by, DROP COLUMN project_id, DROP COLUMN source;
      ALTER TABLE jobs ALTER COLUMN api_key_id SET NOT NULL;
    `);
  },
};
