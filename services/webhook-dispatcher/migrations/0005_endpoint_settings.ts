import type { Migration } from '@mf/db';

/**
 * What an endpoint receives and how it is signed: its event filter, its signature scheme, and the
 * secret it had before a rotation, which keeps signing beside the new one until it expires.
 */
export const endpointSettings: Migration = {
  name: '0005_endpoint_settings',
  async up(knex) {
    await knex.raw(`
      -- The job event types sent to the endpoint; every other type is neither sent nor recorded.
      ALTER TABLE endpoints ADD COLUMN events text[] NOT NULL
        DEFAULT ARRAY['job.completed', 'job.failed', 'job.cancelled'];
      -- 'stripe': X-Service-Signature t=..,v1=.. (the contract's); 'standard': Standard Webhooks.
      ALTER TABLE endpoints ADD COLUMN signature_scheme text NOT NULL DEFAULT 'stripe'
        CHECK (signature_scheme IN ('stripe', 'standard'));
      -- The secret before the last rotation (sealed like secret_ciphertext) and when it stops signing.
      ALTER TABLE endpoints ADD COLUMN previous_secret_ciphertext text;
      ALTER TABLE endpoints ADD COLUMN previous_secret_expires_at timestamptz;
    `);
  },
  async down(knex) {
    await knex.raw(`
      ALTER TABLE endpoints DROP COLUMN events, DROP COLUMN signature_scheme,
        DROP COLUMN previous_secret_ciphertext, DROP COLUMN previous_secret_expires_at;
    `);
  },
};
