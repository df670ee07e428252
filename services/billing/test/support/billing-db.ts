import { createDb, migrate, type Knex } from '@mf/db';
import type { ErrorKind } from '@mf/errors';
import { createTestDatabase, type TestDatabase } from '@mf/testing';
import { migrations } from '../../migrations';
import type { BatchOp, BatchOutcome } from '../../src/domain/batch';
import { grant } from '../../src/usecases/grant.usecase';

/**
 * A fresh database with billing's schema for one test file: created before its tests, dropped after.
 * Its pool and URL are getters: they exist only once beforeAll has run.
 */
export function useBillingDatabase(): { readonly db: Knex; readonly url: string } {
  let database: TestDatabase | undefined;
  let db: Knex | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, schema: 'billing', poolMax: 10 });
    await migrate(db, 'billing', migrations);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });
  return {
    get db() {
      return db!;
    },
    get url() {
      return database!.url;
    },
  };
}

/** Gives `userId` its starting credits (none: no grant, no balance row yet). */
export async function seedUser(db: Knex, userId: number, credits: number): Promise<number> {
  if (credits > 0) await grant(db, { user_id: userId, amount: credits, reference: `grant:seed-${userId}` });
  return userId;
}

export const charge = (user_id: number, reference: string, amount: number, api_key_id?: number): BatchOp => ({
  kind: 'charge',
  req: { user_id, reference, amount, ...(api_key_id ? { api_key_id } : {}) },
});

export const refund = (user_id: number, reference: string): BatchOp => ({
  kind: 'refund',
  req: { user_id, reference },
});

export const balanceOf = async (db: Knex, userId: number): Promise<number> =>
  Number((await db('balances').first('credits').where({ user_id: userId }))?.credits ?? 0);

/** 'ok' or the refusal's kind, per outcome. */
export const outcomeKinds = (outcomes: BatchOutcome[]): ('ok' | ErrorKind)[] =>
  outcomes.map((o) => (o.ok ? 'ok' : o.error.kind));
