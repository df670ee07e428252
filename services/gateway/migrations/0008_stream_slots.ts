import type { Migration } from '@mf/db';

export const streamSlots: Migration = {
  name: '0008_stream_slots',
  async up(knex) {
    await knex.raw(`
      -- The open event streams of each API key across every gateway replica (RATE_LIMIT_STORE=postgres):
      -- one lease per stream, renewed by its replica; an expired lease (a crashed replica's) no longer counts.
      CREATE TABLE stream_slots (
        slot_id    text PRIMARY KEY,
        key        text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX stream_slots_key ON stream_slots (key, expires_at);
      CREATE INDEX stream_slots_expires_at ON stream_slots (expires_at);
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE stream_slots;');
  },
};
