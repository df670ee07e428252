import type { Migration } from '@mf/db';

/**
 * A job of the dashboard session may have no key: the playground's (`dashboard`) as before, and
 * now the studio's editor turns' (`editor`); a job made over the API still always has its key
 * (docs/decisions.md 20).
 */
export const keylessEditorJobs: Migration = {
  name: '0007_keyless_editor_jobs',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE jobs DROP CONSTRAINT jobs_key_unless_dashboard;
      ALTER TABLE jobs ADD CONSTRAINT jobs_key_unless_session CHECK (api_key_id IS NOT NULL OR source <> 'api');
    `);
  },
  async down(knex) {
    await knex.raw(`
      DELETE FROM jobs WHERE api_key_id IS NULL AND source = 'editor';
      ALTER TABLE jobs DROP CONSTRAINT jobs_key_unless_session;
      ALTER TABLE jobs ADD CONSTRAINT jobs_key_unless_dashboard CHECK (api_key_id IS NOT NULL OR source = 'dashboard');
    `);
  },
};
