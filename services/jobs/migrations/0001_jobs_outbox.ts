import type { Migration } from '@mf/db';

export const jobsOutbox: Migration = {
  name: '0001_jobs_outbox',
  async up(knex) {
    await knex.raw(`
      CREATE TABLE jobs (
        id                  text PRIMARY KEY,
        user_id             bigint NOT NULL,
        api_key_id          bigint NOT NULL,
        type                text NOT NULL CHECK (type IN ('video', 'image')),
        model_id            text NOT NULL,
        upstream_model      text NOT NULL,
        params              jsonb NOT NULL,
        cost                integer NOT NULL CHECK (cost >= 0),
        -- submitting: row written, charge and provider submit under way (invisible to users).
        -- rejected: the charge or the provider submit failed; never visible, refunded if charged.
        status              text NOT NULL CHECK (status IN ('submitting', 'processing', 'completed', 'failed', 'cancelled', 'rejected')),
        provider            text NOT NULL,
        provider_request_id text,
        result_keys         jsonb,
        error               text,
        -- A refund owed (pending) is retried by the sweeper until billing confirms it (done).
        refund_state        text NOT NULL DEFAULT 'none' CHECK (refund_state IN ('none', 'pending', 'done')),
        created_at          timestamptz NOT NULL DEFAULT now(),
        updated_at          timestamptz NOT NULL DEFAULT now(),
        completed_at        timestamptz,
        deadline_at         timestamptz NOT NULL,
        next_poll_at        timestamptz,
        poll_failures       integer NOT NULL DEFAULT 0
      );
      CREATE INDEX jobs_due ON jobs (next_poll_at) WHERE status = 'processing';
      CREATE INDEX jobs_submitting ON jobs (created_at) WHERE status = 'submitting';
      CREATE INDEX jobs_refund_pending ON jobs (updated_at) WHERE refund_state = 'pending';
      CREATE INDEX jobs_created ON jobs (created_at);

      -- Events written in the same transaction as the state change, relayed to the broker after.
      CREATE TABLE outbox (
        id           bigserial PRIMARY KEY,
        message_id   uuid NOT NULL UNIQUE,
        routing_key  text NOT NULL,
        payload      jsonb NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      );
      CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
    `);
  },
  async down(knex) {
    await knex.raw('DROP TABLE outbox; DROP TABLE jobs;');
  },
};
