import { createDb, type Knex } from '@mf/db';
import { silentLogger } from '@mf/testing';
import { GroupCommitter } from '../src/usecases/group-commit';
import { balanceOf, charge, seedUser, outcomeKinds, useBillingDatabase } from './support/billing-db';

/**
 * A batch in two round trips (BEGIN with lock_batch, the write with COMMIT, each pair pipelined):
 * what it stores is exactly what was asked, and a failed batch leaves its connection clean.
 */
describe('billing group commit, two round trips per batch', () => {
  let nextUser = 1;
  const database = useBillingDatabase();
  let db: Knex;
  beforeAll(() => (db = database.db));
  const logger = silentLogger();

  it('stores references and descriptions with quotes, backslashes and semicolons exactly, and repeats find them', async () => {
    const userId = await seedUser(db, nextUser++, 100);
    const refs = [`job:'q-${userId}`, `job:\\b-${userId}`, "job:'); DROP TABLE balances; --".concat(String(userId))];
    const c = new GroupCommitter(db, { maxBatch: 100, logger });
    const ops = refs.map((reference) => ({
      kind: 'charge' as const,
      req: { user_id: userId, reference, amount: 10, description: `for ${reference} \\ '` },
    }));
    expect(outcomeKinds(await Promise.all(ops.map((op) => c.submit(op))))).toEqual(['ok', 'ok', 'ok']);
    const repeated = await Promise.all(ops.map((op) => c.submit(op)));
    expect(repeated.map((o) => o.ok && o.reply)).toEqual(
      refs.map(() => ({ charged: 10, credits_remaining: 70, duplicate: true })),
    );
    const rows = await db('ledger').select('reference', 'description').where({ user_id: userId, kind: 'charge' });
    expect(rows.map((r) => [r.reference, r.description]).sort()).toEqual(refs.map((r) => [r, `for ${r} \\ '`]).sort());
    expect(await balanceOf(db, userId)).toBe(70);
  });

  it('rolls back a batch whose write the database refuses, and its connection commits the next batch cleanly', async () => {
    const userId = await seedUser(db, nextUser++, 100);
    await db.raw(`
      CREATE FUNCTION refuse_explode() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.reference LIKE 'job:explode%' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_explode BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION refuse_explode();
    `);
    // One connection: the failed batch's, reused by the next.
    const single = createDb({ url: database.url, schema: 'billing', poolMax: 1 });
    try {
      const c = new GroupCommitter(single, { maxBatch: 100, logger });
      await expect(c.submit(charge(userId, `job:explode-${userId}`, 30))).rejects.toThrow('refused');
      expect(await balanceOf(db, userId)).toBe(100);
      const { rows } = await single.raw('SELECT now() = statement_timestamp() AS outside');
      expect(rows[0].outside).toBe(true); // no transaction left open on it
      expect(outcomeKinds([await c.submit(charge(userId, `job:fine-${userId}`, 30))])).toEqual(['ok']);
      expect(await balanceOf(db, userId)).toBe(70);
    } finally {
      await single.destroy();
      await db.raw('DROP TRIGGER refuse_explode ON ledger; DROP FUNCTION refuse_explode()');
    }
  });
});
