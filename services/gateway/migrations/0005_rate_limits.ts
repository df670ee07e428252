import type { Migration } from '@mf/db';

export const rateLimits: Migration = {
  name: '0005_rate_limits',
  async up(knex) {
    await knex.raw(`
      -- The per-key request counters shared by every gateway replica (RATE_LIMIT_STORE=postgres).
      -- Exactly the table rate-limiter-flexible's RateLimiterPostgres expects: it inserts
      -- (key, points, expire) by position and upserts on the key. expire is epoch milliseconds;
      -- the library deletes rows expired for an hour, every 5 minutes.
      CREATE TABLE rate_limits (
        key    varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      );
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE rate_limits;');
  },
};
