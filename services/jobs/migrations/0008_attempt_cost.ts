import type { Migration } from '@mf/db';

/**
 * What each attempt cost upstream (docs/usage.md, operator section): US dollars, as the upstream told
 * (`reported`), its usage priced with the route's price (`metered`), or the route's price for what
 * was made (`price`). Null: unknown or nothing (the local provider, an attempt the upstream did not bill).
 * The index serves the operator report's range over attempt ends.
 */
export const attemptCost: Migration = {
  name: '0008_attempt_cost',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE job_attempts ADD COLUMN upstream_cost numeric(14, 6) CHECK (upstream_cost >= 0);
      ALTER TABLE job_attempts ADD COLUMN upstream_cost_source text CHECK (upstream_cost_source IN ('reported', 'metered', 'price'));
      CREATE INDEX job_attempts_ended_at ON job_attempts (ended_at) WHERE ended_at IS NOT NULL;
      CREATE INDEX jobs_completed_at ON jobs (completed_at) WHERE completed_at IS NOT NULL;
    `);
  },
  async down(knex) {
    await knex.raw(`
      DROP INDEX jobs_completed_at;
      DROP INDEX job_attempts_ended_at;
      ALTER TABLE job_attempts DROP COLUMN upstream_cost_source;
      ALTER TABLE job_attempts DROP COLUMN upstream_cost;
    `);
  },
};
