import fs from 'node:fs';
import path from 'node:path';
import type { ServiceName } from '@mf/fleet';
import { dropTestDatabase, dropTestVhost } from '@mf/testing';
import { adminBatchFor } from './admin-batch';
import { startFleet, type Fleet, type FleetResources } from './fleet';
import { LOOPBACK_DELIVERY } from './webhook-receiver';

/**
 * The pool: one shared fleet per jest worker, started from the production build by the first test
 * file on that worker that asks for it, and kept for every later one (globalTeardown stops it).
 * Its settings are permissive (POOL_ENV): a test on the pool isolates itself with its own user and
 * keys, and must not stop, pause or reconfigure a service. Suites that do need a dedicated fleet
 * (startFleet).
 */

/** The settings every pooled fleet runs with, beyond startFleet's defaults. */
export const POOL_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_PER_MINUTE: '100000',
  // Tests import media from https servers on 127.0.0.1 (support/reference-server.ts).
  ALLOW_PRIVATE_URLS: 'true',
  // Tests receive webhooks on plain http servers on 127.0.0.1 (support/webhook-receiver.ts).
  ...LOOPBACK_DELIVERY,
  WEBHOOK_RETRY_DELAYS_MS: '1000,1500,2000',
  WEBHOOK_TIMEOUT_MS: '1000',
  EXPORT_RATE_LIMIT: '100',
  // A test may hold a reference image's answer for as long as it needs a job to stay processing
  // (dashboard/ui.e2e): past the default 15 s, the job would fail instead.
  REFERENCE_TIMEOUT_MS: '300000',
};

/** What a test on the pool gets: the fleet's address, environment and ports, and its admin CLI. */
export type PooledFleet = Pick<Fleet, 'baseUrl' | 'env' | 'ports' | 'logDir' | 'admin'>;

interface PoolEntry {
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  ports: Record<ServiceName, number>;
  logDir: string;
  resources: FleetResources;
}

/** Set by the e2e project's globalSetup (support/global-setup.ts): where each worker records its fleet. */
export const POOL_DIR_VAR = 'MF_E2E_POOL_DIR';

function poolDir(): string {
  const dir = process.env[POOL_DIR_VAR];
  if (!dir) throw new Error(`${POOL_DIR_VAR} is not set: run e2e tests through jest's e2e project (jest.config.js)`);
  return dir;
}

const entryFile = (dir: string): string => path.join(dir, `worker-${process.env.JEST_WORKER_ID ?? '1'}.json`);

function asPooled(entry: PoolEntry): PooledFleet {
  return {
    baseUrl: entry.baseUrl,
    env: entry.env,
    ports: entry.ports,
    logDir: entry.logDir,
    admin: (...args) => adminBatchFor(entry.env, 'compiled')(args),
  };
}

/** Whether the fleet answers ready (200 from /readyz) within `ms`, probing until it does. */
async function readyWithin(baseUrl: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready || Date.now() > end) return ready;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** This worker's shared fleet: started on first use, then the same one for every test file on the worker. */
export async function pooledFleet(): Promise<PooledFleet> {
  const file = entryFile(poolDir());
  if (fs.existsSync(file)) {
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as PoolEntry;
    // A pooled fleet is never stopped by a test: if it stays down, an earlier file broke the rule.
    // One probe is not enough: on a loaded machine a readiness check (database, broker) can miss
    // its own deadline once while the fleet is fine.
    const ready = await readyWithin(entry.baseUrl, 30_000);
    if (!ready) throw new Error(`the pooled fleet at ${entry.baseUrl} is not ready; logs in ${entry.logDir}`);
    return asPooled(entry);
  }
  const fleet = await startFleet({ ...POOL_ENV }, { form: 'compiled', keep: true });
  const entry: PoolEntry = {
    baseUrl: fleet.baseUrl,
    env: fleet.env,
    ports: fleet.ports,
    logDir: fleet.logDir,
    resources: fleet.resources(),
  };
  fs.writeFileSync(file, JSON.stringify(entry));
  return asPooled(entry);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops every pooled fleet recorded in `dir` (SIGTERM, SIGKILL after 15 s) and drops its database and vhost. */
export async function stopPool(dir: string): Promise<void> {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^worker-.*\.json$/.test(f)) : [];
  await Promise.all(
    files.map(async (f) => {
      const { resources } = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as PoolEntry;
      for (const pid of resources.pids) if (alive(pid)) process.kill(pid, 'SIGTERM');
      const until = Date.now() + 15_000;
      while (resources.pids.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      for (const pid of resources.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await Promise.allSettled([dropTestDatabase(resources.database), dropTestVhost(resources.vhost)]);
      fs.rmSync(resources.dataDir, { recursive: true, force: true });
    }),
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
