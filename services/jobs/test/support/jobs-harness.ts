import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bus } from '@mf/bus';
import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { billingRpc, MODEL_IDS } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { createStorage } from '@mf/storage';
import { FakeBilling, freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';

export { FakeBilling };
import { migrations } from '../../migrations';
import type { Provider, ProviderJob, ProviderStatus } from '../../src/providers/provider';
import { createProviderMetrics } from '../../src/routing/provider-metrics';
import { DEFAULT_BREAKER, type BreakerSettings, type RoutingConfig } from '../../src/routing/providers-document';
import { Routing } from '../../src/routing/routing';
import type { JobsContext } from '../../src/usecases/context';

/** A provider whose answers the test scripts; counts every submit and status call per request. */
export class ScriptedProvider implements Provider {
  readonly type = 'local' as const;
  statusCalls = new Map<string, number>();
  cancels: string[] = [];
  submits: ProviderJob[] = [];
  next: (requestId: string) => ProviderStatus | Promise<ProviderStatus> = () => ({ state: 'running' });
  submitError: Error | null = null;
  /** Runs inside submit before it answers (a test can race it). */
  duringSubmit: (job: ProviderJob) => Promise<void> | void = () => undefined;

  constructor(readonly name = 'local') {}

  async submit(job: ProviderJob): Promise<{ requestId: string }> {
    this.submits.push(job);
    await this.duringSubmit(job);
    if (this.submitError) throw this.submitError;
    // The local prefix keeps the request ids of the one-provider tests as they were.
    return { requestId: this.name === 'local' ? `req-${job.jobId}` : `${this.name}-${job.jobId}-${job.attempt}` };
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

/** A routing of the given providers, every model routed to them in order (breakers as given, on the clock `now`). */
export function routingOf(
  providers: Provider[],
  breaker: BreakerSettings = { failures: 0, cooldownMs: DEFAULT_BREAKER.cooldownMs },
  attemptTimeoutMs?: number,
  now?: () => number,
): Routing {
  const config: RoutingConfig = {
    providers: new Map(providers.map((p) => [p.name, { name: p.name, type: p.type, breaker, attemptTimeoutMs }])),
    routes: Object.fromEntries(
      MODEL_IDS.map((m) => [m, providers.map((p) => ({ provider: p.name, models: null }))]),
    ) as RoutingConfig['routes'],
  };
  return new Routing(
    config,
    new Map(providers.map((p) => [p.name, p])),
    DEFAULT_FAL_ENDPOINTS,
    createProviderMetrics(),
    now,
  );
}

/**
 * Jobs on the real database and broker. Billing is a fake (libs/testing) unless `fakeBilling` is
 * false: then the test serves billing itself (support/real-billing.ts) and `billing` is unused.
 */
export async function startHarness(options: { fakeBilling?: boolean } = {}): Promise<Harness> {
  const env = await freshTestEnv();
  const db = createDb({ url: env.databaseUrl, schema: 'jobs', poolMax: 10 });
  await migrate(db, 'jobs', migrations);
  const logger = silentLogger();
  const billingBus = new Bus({ url: env.amqpUrl, service: 'billing', logger });
  const billing = new FakeBilling();
  await billingBus.start();
  if (options.fakeBilling !== false) await billingBus.serveRpc(billingRpc, billing.handlers);
  const bus = new Bus({ url: env.amqpUrl, service: 'jobs', logger });
  await bus.start();
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-jobs-int-'));
  const provider = new ScriptedProvider();
  const ctx: JobsContext = {
    db,
    bus,
    routing: routingOf([provider]),
    storage: createStorage({ driver: 'local', dir: mediaDir }),
    logger,
    settings: {
      publicBaseUrl: 'https://media.test',
      jobTimeoutMs: 60_000,
      pollIntervalMs: 50,
      callbackSecret: 'x'.repeat(32),
      submitBudgetMs: 20_000,
      submitStaleAfterMs: 5_000,
    },
    assertReferenceUrl: async () => undefined,
    downloadResult: () => Promise.reject(new Error('not used')),
    kickRelay: () => undefined,
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
