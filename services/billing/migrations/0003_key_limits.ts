import type { Migration } from '@mf/db';

/**
 * Per-API-key spend caps (docs/api-behaviour.md "Spend caps"): billing owns each key's limits and
 * its counters, and checks them in the same transaction as the debit (src/domain/batch.ts).
 */
export const keyLimits: Migration = {
  name: '0003_key_limits',
  async up(knex) {
    await knex.raw(`
      -- One row per key that was ever charged or given limits. spent counts the key's charges of
      -- period_start's calendar month (UTC) not refunded; a charge in a later month starts it again
      -- from 0. active counts the key's jobs charged and not yet ended (job event) or refunded.
      CREATE TABLE key_limits (
        api_key_id          bigint PRIMARY KEY,
        user_id             bigint NOT NULL,
        spend_limit         bigint CHECK (spend_limit >= 1),
        max_concurrent_jobs integer CHECK (max_concurrent_jobs >= 1),
        period_start        date NOT NULL DEFAULT date_trunc('month', now() AT TIME ZONE 'UTC')::date,
        spent               bigint NOT NULL DEFAULT 0 CHECK (spent >= 0),
        active              integer NOT NULL DEFAULT 0 CHECK (active >= 0),
        updated_at          timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX key_limits_user ON key_limits (user_id);
      -- Which key made a charge, in which month, and whether its job still runs: what a refund gives back.
      CREATE TABLE key_charges (
        reference    text PRIMARY KEY,
        api_key_id   bigint NOT NULL,
        period_start date NOT NULL,
        amount       bigint NOT NULL,
        active       boolean NOT NULL
      );

      -- lock_batch (0002) grows the keys: the batch's charges name theirs, refunds and job ends
      -- find theirs in key_charges. Keys are locked after the balances, in key order, so
      -- concurrent batches never deadlock. Returns the database's month too: one clock for periods.
      CREATE FUNCTION lock_batch(p_references text[], p_users bigint[], p_keys bigint[], p_key_users bigint[])
      RETURNS jsonb
      LANGUAGE plpgsql
      SET search_path FROM CURRENT
      AS $fn$
      DECLARE
        v_state jsonb;
        v_key_charges jsonb;
        v_keys jsonb;
      BEGIN
        v_state := lock_batch(p_references, p_users);
        SELECT COALESCE(jsonb_agg(jsonb_build_object('reference', reference, 'api_key_id', api_key_id,
                 'period_start', period_start, 'amount', amount, 'active', active)), '[]'::jsonb)
          INTO v_key_charges
          FROM key_charges WHERE reference = ANY (p_references);
        INSERT INTO key_limits (api_key_id, user_id)
          SELECT DISTINCT ON (k) k, u FROM unnest(p_keys, p_key_users) AS t(k, u) ORDER BY k
          ON CONFLICT (api_key_id) DO NOTHING;
        SELECT COALESCE(jsonb_agg(jsonb_build_object('api_key_id', l.api_key_id, 'spend_limit', l.spend_limit,
                 'max_concurrent_jobs', l.max_concurrent_jobs, 'period_start', l.period_start,
                 'spent', l.spent, 'active', l.active)), '[]'::jsonb)
          INTO v_keys
          FROM (SELECT * FROM key_limits
                 WHERE api_key_id = ANY (p_keys)
                    OR api_key_id IN (SELECT (c->>'api_key_id')::bigint FROM jsonb_array_elements(v_key_charges) AS c)
                 ORDER BY api_key_id FOR UPDATE) AS l;
        RETURN v_state || jsonb_build_object('key_charges', v_key_charges, 'keys', v_keys,
          'period', date_trunc('month', now() AT TIME ZONE 'UTC')::date);
      END
      $fn$;
    `);
  },
  async down(knex) {
    await knex.raw(`
      DROP FUNCTION lock_batch(text[], bigint[], bigint[], bigint[]);
      DROP TABLE key_charges;
      DROP TABLE key_limits;
    `);
  },
};
