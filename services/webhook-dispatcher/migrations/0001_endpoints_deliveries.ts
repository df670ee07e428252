import type { Migration } from '@mf/db';

export const endpointsDeliveries: Migration = {
  name: '0001_endpoints_deliveries',
  async up(knex) {
    await knex.raw(`
      -- One webhook endpoint per API key (contract section 2), owned by the key's user.
      CREATE TABLE endpoints (
        api_key_id        bigint PRIMARY KEY,
        user_id           bigint NOT NULL,
        url               text NOT NULL,
        -- The signing secret, AES-256-GCM under WEBHOOK_SECRET_KEY: base64(iv | tag | ciphertext).
        secret_ciphertext text NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now()
      );

      -- Every delivery attempt: the key's webhook usage records.
      CREATE TABLE deliveries (
        id          bigserial PRIMARY KEY,
        event_id    text NOT NULL,
        event       text NOT NULL,
        job_id      text NOT NULL,
        api_key_id  bigint NOT NULL,
        user_id     bigint NOT NULL,
        attempt     integer NOT NULL,
        url         text NOT NULL,
        status_code integer,
        error       text,
        duration_ms integer NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX deliveries_by_key ON deliveries (api_key_id, id DESC);
      CREATE INDEX deliveries_by_event ON deliveries (event_id);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE deliveries; DROP TABLE endpoints;');
  },
};
