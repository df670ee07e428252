import type { Migration } from '@mf/db';

/**
 * The per-endpoint delivery lanes: every attempt owed to an endpoint waits in `pending_attempts`
 * (written by the consumer, which then acks) until a lane worker claims it within the endpoint's
 * cap; and which attempts were made by a resend or recover (recover skips events already sent again).
 */
export const deliveryLanes: Migration = {
  name: '0004_delivery_lanes',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE pending_attempts (
        id            bigserial PRIMARY KEY,
        api_key_id    bigint NOT NULL,
        user_id       bigint NOT NULL,
        event_id      text NOT NULL,
        -- 'event': a job event's next attempt; its broker message (message) schedules the retry.
        -- 'resend': recover's one more attempt of the event of delivery_id, never retried.
        kind          text NOT NULL CHECK (kind IN ('event', 'resend')),
        -- The bus's attempt number of an 'event' (1 on first delivery); 0 for a 'resend'.
        attempt       integer NOT NULL,
        message       jsonb,
        delivery_id   bigint,
        created_at    timestamptz NOT NULL DEFAULT now(),
        -- The replica sending it now, and until when its claim holds unless renewed.
        claimed_by    text,
        claimed_until timestamptz
      );
      -- A lane: the endpoint's attempts in arrival order.
      CREATE INDEX pending_attempts_lane ON pending_attempts (api_key_id, id);
      CREATE INDEX pending_attempts_event ON pending_attempts (api_key_id, event_id);
      CREATE INDEX pending_attempts_claimed ON pending_attempts (claimed_by) WHERE claimed_by IS NOT NULL;
      -- A redelivered copy of one broker message (same event, same attempt) is one pending attempt.
      CREATE UNIQUE INDEX pending_attempts_event_copy ON pending_attempts (api_key_id, event_id, attempt)
        WHERE kind = 'event';

      ALTER TABLE deliveries ADD COLUMN resend boolean NOT NULL DEFAULT false;
      CREATE INDEX deliveries_by_key_event ON deliveries (api_key_id, event_id);
    `);
  },
  async down(knex) {
    await knex.raw(`
      DROP INDEX deliveries_by_key_event;
      ALTER TABLE deliveries DROP COLUMN resend;
      DROP TABLE pending_attempts;
    `);
  },
};
