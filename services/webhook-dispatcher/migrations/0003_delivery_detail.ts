import type { Migration } from '@mf/db';

/**
 * What each attempt sent and got back (for the delivery detail view and resend), and the state
 * that disables an endpoint failing without a break for WEBHOOK_DISABLE_AFTER_MS.
 */
export const deliveryDetail: Migration = {
  name: '0003_delivery_detail',
  async up(knex) {
    await knex.raw(`
      -- A 2xx answer. Stored, not derived, so the status filter and recover use an index.
      ALTER TABLE deliveries ADD COLUMN succeeded boolean NOT NULL DEFAULT false;
      UPDATE deliveries SET succeeded = true WHERE status_code BETWEEN 200 AND 299;
      -- The headers sent (signature included) and the raw body sent; null for attempts made before this migration.
      ALTER TABLE deliveries ADD COLUMN request_headers jsonb;
      ALTER TABLE deliveries ADD COLUMN request_body text;
      -- The first 4 KB of the answer's body (UTF-8, lossy); null when there was no answer.
      ALTER TABLE deliveries ADD COLUMN response_body text;
      CREATE INDEX deliveries_by_key_time ON deliveries (api_key_id, created_at);

      -- First failure of the current unbroken run of failures (null after a 2xx), and when that
      -- run outlasted the limit and the endpoint was disabled (null while enabled).
      ALTER TABLE endpoints ADD COLUMN failing_since timestamptz;
      ALTER TABLE endpoints ADD COLUMN disabled_at timestamptz;
    `);
  },
  async down(knex) {
    await knex.raw(`
      DROP INDEX deliveries_by_key_time;
      ALTER TABLE deliveries DROP COLUMN succeeded, DROP COLUMN request_headers, DROP COLUMN request_body,
        DROP COLUMN response_body;
      ALTER TABLE endpoints DROP COLUMN failing_since, DROP COLUMN disabled_at;
    `);
  },
};
