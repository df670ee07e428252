import type { Migration } from '@mf/db';

/**
 * What usage is grouped by (docs/usage.md): each charge names the model (or kind of editor
 * charge) and the API key it was made for. A refund names neither: it counts for its reference's
 * charge. Rows written before have nulls; usage then falls back to the reference's prefix.
 */
export const ledgerUsage: Migration = {
  name: '0004_ledger_usage',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE ledger ADD COLUMN model text, ADD COLUMN api_key_id bigint;
      -- Usage and ledger reads by time range, refunds included (ledger_user_period holds charges only).
      CREATE INDEX ledger_user_created ON ledger (user_id, created_at);
    `);
  },
  async down(knex) {
    await knex.raw('DROP INDEX ledger_user_created; ALTER TABLE ledger DROP COLUMN model, DROP COLUMN api_key_id;');
  },
};
