import type { Migration } from '@mf/db';

/** The dashboard lists a user's jobs newest first (jobs.list): one index walk per page. */
export const jobsByUser: Migration = {
  name: '0002_jobs_by_user',
  async up(knex) {
    await knex.raw('CREATE INDEX jobs_user_created ON jobs (user_id, created_at DESC, id DESC)');
  },
  async down(knex) {
    await knex.raw('DROP INDEX jobs_user_created');
  },
};
