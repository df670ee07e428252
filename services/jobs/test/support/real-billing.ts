import { Bus } from '@mf/bus';
import { billingKeyLimitsRpc, type SetKeyLimitsRequest } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../../../billing/migrations';
import { serveBillingRpc, serveKeyLimitsRpc } from '../../../billing/src/messaging/billing-rpc.server';
import { grant } from '../../../billing/src/usecases/grant.usecase';
import { GroupCommitter } from '../../../billing/src/usecases/group-commit';

/**
 * Billing itself, not a fake: its schema in the test's database, its group commit and its RPC
 * handlers on the test's broker. For the jobs tests whose rule is billing's (one charge per
 * reference on the same terms, a closed reference, key limits, refunds to the charged user).
 */
export interface RealBilling {
  db: Knex;
  grant: (userId: number, credits: number) => Promise<void>;
  balance: (userId: number) => Promise<number>;
  /** The user's ledger: kind and amount of each entry, oldest first. */
  ledger: (userId: number) => Promise<{ kind: string; amount: number; reference: string }[]>;
  setKeyLimits: (req: SetKeyLimitsRequest) => Promise<void>;
  close: () => Promise<void>;
}

export async function startRealBilling(env: TestEnv): Promise<RealBilling> {
  const logger = silentLogger();
  const db = createDb({ url: env.databaseUrl, schema: 'billing', poolMax: 5 });
  await migrate(db, 'billing', migrations);
  const bus = new Bus({ url: env.amqpUrl, service: 'billing', logger });
  await bus.start();
  const committer = new GroupCommitter(db, { maxBatch: 50, logger });
  await serveBillingRpc(bus, { db, committer }, 10);
  await serveKeyLimitsRpc(bus, db, 4);
  let grants = 0;
  return {
    db,
    grant: async (userId, credits) => {
      await grant(db, { user_id: userId, amount: credits, reference: `grant:test-${userId}-${++grants}` });
    },
    balance: async (userId) => Number((await db('balances').first('credits').where({ user_id: userId }))?.credits ?? 0),
    ledger: async (userId) =>
      (await db('ledger').select('kind', 'amount', 'reference').where({ user_id: userId }).orderBy('id')).map(
        (r: { kind: string; amount: string | number; reference: string }) => ({ ...r, amount: Number(r.amount) }),
      ),
    setKeyLimits: async (req) => {
      await bus.rpc(billingKeyLimitsRpc, 'set', req);
    },
    close: async () => {
      await bus.close();
      await db.destroy();
    },
  };
}
