import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bus } from '@mf/bus';
import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { billingRpc, type ChargeReply, type RefundReply } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { createStorage } from '@mf/storage';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../../migrations';
import type { Provider, ProviderJob, ProviderStatus } from '../../src/providers/provider';
import type { JobsContext } from '../../src/usecases/context';

/** An in-memory billing on the real contract: balances, one charge and one refund per reference. */
export class FakeBilling {
  balances = new Map<number, number>();
  charges = new Map<string, { user: number; amount: number }>();
  refunds = new Map<string, number>();

  handlers = {
    charge: async (req: { user_id: number; reference: string; amount: number }): Promise<ChargeReply> => {
      if (this.refunds.has(req.reference)) throw AppError.conflict('closed');
      if (this.charges.has(req.reference)) return { charged: req.amount, credits_remaining: this.balance(req.user_id), duplicate: true };
      if (this.balance(req.user_id) < req.amount) throw AppError.insufficientCredits(req.amount, this.balance(req.user_id));
      this.balances.set(req.user_id, this.balance(req.user_id) - req.amount);
      this.charges.set(req.reference, { user: req.user_id, amount: req.amount });
      return { charged: req.amount, credits_remaining: this.balance(req.user_id), duplicate: false };
    },
    refund: async (req: { user_id: number; reference: string }): Promise<RefundReply> => {
      if (this.refunds.has(req.reference)) return { refunded: this.refunds.get(req.reference)!, credits_remaining: this.balance(req.user_id), duplicate: true };
      const amount = this.charges.get(req.reference)?.amount ?? 0;
      this.refunds.set(req.reference, amount);
      this.balances.set(req.user_id, this.balance(req.user_id) + amount);
      return { refunded: amount, credits_remaining: this.balance(req.user_id), duplicate: false };
    },
    grant: async () => {
      throw new Error('not used');
    },
    account: async () => {
      throw new Error('not used');
    },
    ledger: async () => ({ entries: [] }),
  };

  balance(user: number): number {
    return this.balances.get(user) ?? 0;
  }
}

/** A provider whose answers the test scripts; counts every status call per request. */
export class ScriptedProvider implements Provider {
  readonly name = 'local' as const;
  statusCalls = new Map<string, number>();
  cancels: string[] = [];
  next: (requestId: string) => ProviderStatus | Promise<ProviderStatus> = () => ({ state: 'running' });
  submitError: Error | null = null;

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    if (this.submitError) throw this.submitError;
    return { requestId: `req-${job.jobId}` };
  }
  async status(requestId: string): Promise<ProviderStatus> {
    this.statusCalls.set(requestId, (this.statusCalls.get(requestId) ?? 0) + 1);
    return this.next(requestId);
  }
  async cancel(requestId: string): Promise<void> {
    this.cancels.push(requestId);
  }
}

export interface Harness {
  env: TestEnv;
  db: Knex;
  bus: Bus;
  billing: FakeBilling;
  provider: ScriptedProvider;
  ctx: JobsContext;
  mediaDir: string;
  close: () => Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const env = await freshTestEnv();
  const db = createDb({ url: env.databaseUrl, schema: 'jobs', poolMax: 10 });
  await migrate(db, 'jobs', migrations);
  const logger = silentLogger();
  const billingBus = new Bus({ url: env.amqpUrl, service: 'billing', logger });
  const billing = new FakeBilling();
  await billingBus.start();
  await billingBus.serveRpc(billingRpc, billing.handlers);
  const bus = new Bus({ url: env.amqpUrl, service: 'jobs', logger });
  await bus.start();
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-jobs-int-'));
  const provider = new ScriptedProvider();
  const ctx: JobsContext = {
    db,
    bus,
    provider,
    storage: createStorage({ driver: 'local', dir: mediaDir }),
    logger,
    falEndpoints: DEFAULT_FAL_ENDPOINTS,
    settings: { publicBaseUrl: 'https://media.test', jobTimeoutMs: 60_000, pollIntervalMs: 50, callbackSecret: 'x'.repeat(32), providerCallbacks: false },
    assertReferenceUrl: async () => undefined,
    downloadResult: async () => {
      throw new Error('not used');
    },
    kickRelay: () => undefined,
    faultPoint: () => undefined,
  };
  return {
    env,
    db,
    bus,
    billing,
    provider,
    ctx,
    mediaDir,
    close: async () => {
      await bus.close();
      await billingBus.close();
      await db.destroy();
      await env.teardown();
      fs.rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

/** A file the provider "produced". */
export function producedFile(dir: string, name: string, bytes = 'media'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}
