import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bus } from '@mf/bus';
import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { billingRpc } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { createStorage } from '@mf/storage';
import { FakeBilling, freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';

export { FakeBilling };
import { migrations } from '../../migrations';
import type { Provider, ProviderJob, ProviderStatus } from '../../src/providers/provider';
import type { JobsContext } from '../../src/usecases/context';

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
