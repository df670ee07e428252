import type { Migration } from '@mf/db';

export const lockBatch: Migration = {
  name: '0002_lock_batch',
  async up(knex) {
    await knex.raw(`
      -- The first statement of a group-committed batch of charges and refunds (src/usecases/group-commit.ts),
      -- one round trip: serialise on the batch's references (advisory locks, in hash order), make sure
      -- every user of the batch has a balance row (0 when new: same counters as no row), lock those
      -- rows (in user order, so concurrent batches never deadlock), and return them with the ledger
      -- rows of the references. The caller decides every outcome in arrival order and writes the
      -- result before COMMIT; the locks hold until then.
      CREATE FUNCTION lock_batch(p_references text[], p_users bigint[]) RETURNS jsonb
      LANGUAGE plpgsql
      SET search_path FROM CURRENT
      AS $fn$
      DECLARE
        v_balances jsonb;
        v_ledger jsonb;
      BEGIN
        PERFORM pg_advisory_xact_lock(h)
          FROM (SELECT DISTINCT hashtextextended(r, 0) AS h FROM unnest(p_references) AS r ORDER BY h) AS hashes;
        INSERT INTO balances (user_id, credits)
          SELECT u, 0 FROM (SELECT DISTINCT u FROM unnest(p_users) AS u ORDER BY u) AS users
          ON CONFLICT (user_id) DO NOTHING;
        SELECT COALESCE(jsonb_object_agg(locked.user_id, locked.credits), '{}'::jsonb) INTO v_balances
          FROM (SELECT user_id, credits FROM balances WHERE user_id = ANY (p_users) ORDER BY user_id FOR UPDATE) AS locked;
        SELECT COALESCE(jsonb_agg(jsonb_build_object('reference', reference, 'kind', kind, 'user_id', user_id, 'amount', amount)), '[]'::jsonb) INTO v_ledger
          FROM ledger WHERE reference = ANY (p_references);
        RETURN jsonb_build_object('balances', v_balances, 'ledger', v_ledger);
      END
      $fn$;
    `);
  },
  async down(knex) {
    await knex.raw('DROP FUNCTION lock_batch(text[], bigint[]);');
  },
};
