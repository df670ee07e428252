import type { Migration } from '@mf/db';

/** Test deliveries sent from the dashboard (a ping, or a sample job.completed) are marked as such in the log. */
export const testDeliveries: Migration = {
  name: '0002_test_deliveries',
  async up(knex) {
    await knex.raw(`
      ALTER TABLE deliveries ADD COLUMN test boolean NOT NULL DEFAULT false;
      UPDATE deliveries SET test = true WHERE event = 'webhook.test';
    `);
  },
  async down(knex) {
    await knex.raw('ALTER TABLE deliveries DROP COLUMN test;');
  },
};
