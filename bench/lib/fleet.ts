import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  COMPILED_ENV,
  COMPILED_NODE_FLAGS,
  REPO_ROOT,
  SERVICES,
  startServiceProcess,
  waitReady,
  type ServiceForm,
  type ServiceName,
  type ServiceProcess,
} from '@mf/fleet';
import { freePort, freshTestEnv } from '../../libs/testing/src';
import { writeProfilePids } from './cpu-profile';
import { startBenchProvider, type BenchProvider, type BenchProviderOptions } from './fake-provider';

const run = promisify(execFile);

/** Requests per minute per key on the bench fleet: the contract's 60 would cap one key at 1 req/s. */
export const BENCH_RATE_LIMIT = 1_000_000_000;
/** Credits of a bench user (the largest grant billing accepts). */
export const BENCH_CREDITS = 1_000_000_000;
/**
 * The jobs poller's interval on the bench fleet: long, so jobs held at the bench provider are not
 * polled in the background while something else is measured. Completion still travels the
 * production path: the provider's callback makes the job due and wakes the poller at once.
 */
export const BENCH_POLL_INTERVAL_MS = 600_000;

export interface BenchUser {
  userId: number;
  email: string;
  key: string;
  keyId: number;
}

export interface BenchFleet {
  baseUrl: string;
  databaseUrl: string;
  amqpUrl: string;
  env: NodeJS.ProcessEnv;
  procs: Record<ServiceName, ServiceProcess>;
  provider: BenchProvider;
  /** Runs the admin CLI; resolves its JSON output. */
  admin: (...args: string[]) => Promise<Record<string, unknown>>;
  /** A new user with `credits` and one key of `scopes`. */
  userWithKey: (scopes?: string, credits?: number) => Promise<BenchUser>;
  /** Describes what differs from a default deployment, for the bench's header. */
  notes: string[];
  /** Stops every service, drops the database and vhost; logs are kept after a failure or with BENCH_KEEP_LOGS=1. */
  shutdown: (opts?: { failed?: boolean }) => Promise<void>;
}

/**
 * The six services as real processes on free ports, against a fresh database and vhost, with the
 * bench provider (an instant fake of fal's queue API) as their upstream. Production defaults
 * otherwise, LOG_LEVEL included (BENCH_LOG_LEVEL changes it), except what `notes` lists. `form`:
 * from source (node + tsx, as npm start) or the production build (services/<name>/dist, as the
 * images run them; build it first).
 */
export async function startBenchFleet(
  extraEnv: Record<string, string> = {},
  form: ServiceForm = 'source',
  providerOptions: BenchProviderOptions = {},
): Promise<BenchFleet> {
  const [testEnv, provider] = await Promise.all([freshTestEnv(), startBenchProvider(providerOptions)]);
  const ports = {} as Record<ServiceName, number>;
  for (const s of SERVICES) ports[s.name] = await freePort();
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-bench-'));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: testEnv.databaseUrl,
    AMQP_URL: testEnv.amqpUrl,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    PUBLIC_BASE_URL: baseUrl,
    STORAGE_DIR: path.join(dataDir, 'media'),
    LOCAL_WORK_DIR: path.join(dataDir, 'local-provider'),
    NODE_EXTRA_CA_CERTS: provider.caPath,
    PROVIDER: 'fal',
    FAL_KEY: provider.apiKey,
    FAL_QUEUE_URL: provider.url,
    FAL_WEBHOOK_JWKS_URL: provider.jwksUrl,
    ALLOW_PRIVATE_URLS: 'true',
    POLL_INTERVAL_MS: String(BENCH_POLL_INTERVAL_MS),
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...extraEnv,
  };
  const notes = [
    form === 'compiled'
      ? `services run from their production build (${Object.entries(COMPILED_ENV)
          .map(([k, v]) => `${k}=${v} `)
          .join('')}node ${COMPILED_NODE_FLAGS.join(' ')} services/<name>/dist/main.js, as in the images)`
      : 'services run from source (node + tsx, as npm start)',
    `RATE_LIMIT_PER_MINUTE=${env.RATE_LIMIT_PER_MINUTE} (the contract's 60/min/key would cap the bench key at 1 req/s)`,
    `PROVIDER=fal against an instant fake (submit answers at once; a job completes when the bench says so); POLL_INTERVAL_MS=${env.POLL_INTERVAL_MS} so held jobs are not polled in the background`,
    `LOG_LEVEL=${env.LOG_LEVEL}, logs to files; ALLOW_PRIVATE_URLS, WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE on (loopback provider and receiver)`,
  ];
  // BENCH_CPU_PROF=<dir>: every service writes a V8 CPU profile there when it exits.
  const cpuProfDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`] : [];
  if (cpuProfDir) notes.push(`BENCH_CPU_PROF: each service writes a CPU profile to ${path.resolve(cpuProfDir)}`);
  const procs = {} as Record<ServiceName, ServiceProcess>;

  const teardown = async (keepLogs: boolean) => {
    await Promise.all(Object.values(procs).map((p) => p.stop('SIGTERM')));
    await Promise.allSettled([testEnv.teardown(), provider.close()]);
    if (keepLogs) console.log(`service logs kept in ${logDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    // All at once: each service waits for its own dependencies.
    await Promise.all(
      SERVICES.map(async (s) => {
        procs[s.name] = startServiceProcess(
          s.name,
          ports[s.name],
          env,
          { file: path.join(logDir, `${s.name}.log`) },
          form,
          nodeArgs,
        );
        await waitReady(procs[s.name], 180_000);
      }),
    );
  } catch (err) {
    await teardown(true);
    throw err;
  }
  if (cpuProfDir)
    writeProfilePids(
      path.resolve(cpuProfDir),
      Object.fromEntries(Object.values(procs).map((p) => [p.child.pid!, p.name])),
    );

  const admin = async (...args: string[]): Promise<Record<string, unknown>> => {
    try {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', path.join(REPO_ROOT, 'services/gateway/src/admin/cli.ts'), ...args],
        { cwd: REPO_ROOT, env, timeout: 120_000 },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    } catch (err) {
      const e = err as { stderr?: string; code?: number };
      throw new Error(`admin ${args.join(' ')} failed (exit ${e.code}): ${e.stderr ?? String(err)}`);
    }
  };

  let counter = 0;
  return {
    baseUrl,
    databaseUrl: testEnv.databaseUrl,
    amqpUrl: testEnv.amqpUrl,
    env,
    procs,
    provider,
    admin,
    notes,
    userWithKey: async (scopes = 'all', credits = BENCH_CREDITS) => {
      const email = `bench${Date.now()}${counter++}@example.test`;
      const user = await admin('user:create', '--email', email, '--credits', String(credits));
      const key = await admin('key:create', '--email', email, '--scopes', scopes);
      return { userId: Number(user.user_id), email, key: String(key.key), keyId: Number(key.id) };
    },
    shutdown: async (opts = {}) => teardown(opts.failed === true || process.env.BENCH_KEEP_LOGS === '1'),
  };
}

/** Submits one image job through the gateway; resolves its id (the job stays processing at the bench provider). */
export async function submitImageJob(fleet: BenchFleet, key: string, prompt = 'bench'): Promise<string> {
  const res = await fetch(`${fleet.baseUrl}/api/v1/image/imagegen/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  const body = (await res.json()) as { job_id?: string };
  if (res.status !== 202 || !body.job_id) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
  return body.job_id;
}

/**
 * Runs a bench's main with a fleet, shutting it down afterwards; the process exits non-zero on
 * error (a bench that could not measure says so, it never passes or fails on a figure).
 */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
