import { Bus } from '../../libs/bus/src';
import { createDb } from '../../libs/db/src';
import { createLogger } from '../../libs/logger/src';
import { createApiKey } from '../../services/gateway/src/core/usecases/api-keys.usecase';
import { createUser, grantCredits } from '../../services/gateway/src/core/usecases/users.usecase';
import { setWebhook } from '../../services/gateway/src/core/usecases/webhooks.usecase';
import { BENCH_CREDITS, type BenchFleet, type BenchUser } from './fleet';

export interface Tenants {
  /** A new user with BENCH_CREDITS and one all-scopes key; its webhook URL when given. */
  make: (webhookUrl?: string) => Promise<BenchUser>;
  close: () => Promise<void>;
}

/**
 * Makes users, keys and webhooks in this process with the admin CLI's own use cases (the gateway's
 * database, the broker for billing and the dispatcher): a bench that needs a hundred tenants would
 * otherwise start the CLI three hundred times.
 */
export async function openTenants(fleet: BenchFleet): Promise<Tenants> {
  const db = createDb({ url: fleet.databaseUrl, schema: 'gateway', poolMax: 4 });
  const bus = new Bus({ url: fleet.amqpUrl, service: 'bench-admin', logger: createLogger('bench', 'silent') });
  await bus.start();
  let counter = 0;
  return {
    make: async (webhookUrl) => {
      const email = `scale${Date.now()}${counter++}@example.test`;
      const user = await createUser(db, { email });
      await grantCredits(bus, user.id, BENCH_CREDITS, `grant:bench-${user.id}`, 'bench credits');
      const key = await createApiKey(db, user.id, ['all'], 'bench');
      if (webhookUrl) await setWebhook(db, bus, key.id, webhookUrl);
      return { userId: user.id, email, key: key.key, keyId: key.id };
    },
    close: async () => {
      await bus.close();
      await db.destroy();
    },
  };
}
