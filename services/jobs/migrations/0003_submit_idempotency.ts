import type { Migration } from '@mf/db';

/**
 * A submit made under a client's Idempotency-Key carries a digest of it: a resubmit with the same
 * digest within the key's window returns the first job instead of charging again (docs/jobs.md).
 */
export const submitIdempotency: Migration = {
  name: '0003_submit_idempotency',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE jobs ADD COLUMN idempotency_key text;
      CREATE INDEX jobs_idempotency_key ON jobs (user_id, idempotency_key, created_at DESC) WHERE idempotency_key IS NOT NULL;
    `);
  },
  async down(knex) {
    await knex.raw('DROP INDEX jobs_idempotency_key; ALTER TABLE jobs DROP COLUMN idempotency_key;');
  },
};
