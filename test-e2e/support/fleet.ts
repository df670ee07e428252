import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  REPO_ROOT,
  SERVICES,
  startServiceProcess,
  waitReady,
  type ServiceForm,
  type ServiceName,
  type ServiceProcess,
} from '@mf/fleet';
import { freePort, freshTestEnv, type TestEnv } from '@mf/testing';
import { adminBatchFor, closeAdminBatches } from './admin-batch';
import { assertResponseMatches } from './openapi-validator';
import { testTls } from './tls';

export interface Fleet {
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  ports: Record<ServiceName, number>;
  logDir: string;
  /** Stops one service (SIGTERM by default) and returns its exit code or signal. */
  stopService: (name: ServiceName, signal?: NodeJS.Signals) => Promise<number | string>;
  /** Starts a stopped service again (optionally with changed variables) and waits until it is ready. */
  startService: (name: ServiceName, envOverride?: Record<string, string>) => Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) a running service: it keeps its connections but answers nothing. */
  pauseService: (name: ServiceName) => void;
  resumeService: (name: ServiceName) => void;
  /**
   * Starts one more replica of a service on a free port, with the fleet's variables (database,
   * vhost) plus `envOverride`, and waits until it is ready. shutdown() stops it too.
   */
  startReplica: (name: ServiceName, envOverride?: Record<string, string>) => Promise<Replica>;
  /** Runs the admin CLI as the README shows it; resolves its JSON output, rejects with its stderr. */
  admin: (...args: string[]) => Promise<Record<string, unknown>>;
  /** Stops every service with SIGTERM; resolves each one's exit code. */
  shutdown: () => Promise<Record<string, number | string>>;
  /** What outlives the test file when the fleet is kept (`keep: true`): for the pool's teardown. */
  resources: () => FleetResources;
}

/** The processes, database, vhost and data directory of a fleet, to clean up from another process. */
export interface FleetResources {
  pids: number[];
  database: string;
  vhost: string;
  dataDir: string;
}

/** An extra replica of a service (Fleet.startReplica). For the gateway, `api()` takes it in place of the fleet. */
export interface Replica {
  baseUrl: string;
  port: number;
  stop: (signal?: NodeJS.Signals) => Promise<number | string>;
}

/**
 * Fleets run the production build unless a test asks otherwise: it starts in a third of the time
 * of tsx on the sources, and the e2e globalSetup rebuilds it whenever a source is newer.
 * E2E_FLEET_FORM=source runs dedicated fleets from their sources instead.
 */
const DEFAULT_FORM: ServiceForm = process.env.E2E_FLEET_FORM === 'source' ? 'source' : 'compiled';

/**
 * The whole fleet as real processes on free ports, against a fresh database and vhost. Service
 * logs are written to test-artifacts/e2e/<run>/<service>.log. `form` picks the services' production
 * build (services/<name>/dist, built beforehand: the e2e globalSetup does) and its admin CLI, or
 * their sources (DEFAULT_FORM). `keep: true` lets the processes outlive the test file that started
 * them (output straight to the log files, children unreferenced): the pool (support/pool.ts) does.
 */
export async function startFleet(
  extraEnv: Record<string, string> = {},
  opts: {
    form?: ServiceForm;
    /** Services run from their sources whatever `form` says (a fault point: the build has none). */
    fromSource?: readonly ServiceName[];
    keep?: boolean;
    /** AMQP_URL from the test vhost's URL (e.g. a node list with a dead node first); the URL itself by default. */
    amqpUrl?: (vhostUrl: string) => string;
  } = {},
): Promise<Fleet> {
  const form = opts.form ?? DEFAULT_FORM;
  const formOf = (name: ServiceName): ServiceForm => (opts.fromSource?.includes(name) ? 'source' : form);
  const testEnv: TestEnv = await freshTestEnv();
  const ports = {} as Record<ServiceName, number>;
  for (const s of SERVICES) ports[s.name] = await freePort();
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-e2e-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: testEnv.databaseUrl,
    AMQP_URL: opts.amqpUrl ? opts.amqpUrl(testEnv.amqpUrl) : testEnv.amqpUrl,
    LOG_LEVEL: 'info',
    RPC_TIMEOUT_MS: '3000',
    SHUTDOWN_TIMEOUT_MS: '10000',
    PUBLIC_BASE_URL: baseUrl,
    USAGE_FLUSH_MS: '100',
    STORAGE_DIR: path.join(dataDir, 'media'),
    LOCAL_WORK_DIR: path.join(dataDir, 'local-provider'),
    POLL_INTERVAL_MS: '200',
    // Test https servers (reference images, a fake upstream) use a self-signed certificate.
    NODE_EXTRA_CA_CERTS: (await testTls()).caPath,
    SWEEP_INTERVAL_MS: '500',
    ...extraEnv,
  };
  const adminBatch = adminBatchFor(env, form);
  const logDir = path.join(REPO_ROOT, 'test-artifacts', 'e2e', testEnv.db.name);
  fs.mkdirSync(logDir, { recursive: true });
  const procs = new Map<ServiceName, ServiceProcess>();
  const replicas: ServiceProcess[] = [];

  const spawnService = (name: ServiceName, port: number, logName: string, envOverride: Record<string, string>) => {
    const file = path.join(logDir, `${logName}.log`);
    if (opts.keep) {
      const proc = startServiceProcess(name, port, { ...env, ...envOverride }, { file }, formOf(name));
      proc.child.unref();
      return proc;
    }
    const log = fs.createWriteStream(file, { flags: 'a' });
    const proc = startServiceProcess(
      name,
      port,
      { ...env, ...envOverride },
      (line) => log.write(`${line}\n`),
      formOf(name),
    );
    void proc.exited.then(() => log.end());
    return proc;
  };

  const launch = async (name: ServiceName, envOverride: Record<string, string> = {}): Promise<void> => {
    const proc = spawnService(name, ports[name], name, envOverride);
    procs.set(name, proc);
    await waitReady(proc, 120_000);
  };

  try {
    // Start all at once: each service waits for its own dependencies.
    await Promise.all(SERVICES.map((s) => launch(s.name)));
  } catch (err) {
    await Promise.all([...procs.values()].map((p) => p.stop('SIGKILL')));
    await testEnv.teardown();
    throw new Error(`${(err as Error).message}; logs in ${logDir}`);
  }

  return {
    baseUrl,
    env,
    ports,
    logDir,
    stopService: (name, signal = 'SIGTERM') => procs.get(name)!.stop(signal),
    startService: (name, envOverride) => launch(name, envOverride),
    pauseService: (name) => void procs.get(name)!.child.kill('SIGSTOP'),
    resumeService: (name) => void procs.get(name)!.child.kill('SIGCONT'),
    startReplica: async (name, envOverride = {}) => {
      const port = await freePort();
      const proc = spawnService(name, port, `${name}-replica-${replicas.length + 1}`, envOverride);
      replicas.push(proc);
      await waitReady(proc, 120_000);
      return { baseUrl: `http://127.0.0.1:${port}`, port, stop: (signal = 'SIGTERM') => proc.stop(signal) };
    },
    admin: (...args) => adminBatch(args),
    shutdown: async () => {
      const codes: Record<string, number | string> = {};
      await closeAdminBatches(env);
      await Promise.all(replicas.map((p) => p.stop('SIGTERM')));
      await Promise.all([...procs.entries()].map(async ([name, p]) => (codes[name] = await p.stop('SIGTERM'))));
      await testEnv.teardown();
      fs.rmSync(dataDir, { recursive: true, force: true });
      return codes;
    },
    resources: () => ({
      pids: [...procs.values(), ...replicas].map((p) => p.child.pid).filter((pid): pid is number => pid !== undefined),
      database: testEnv.db.name,
      vhost: testEnv.vhost.name,
      dataDir,
    }),
  };
}

export interface TestUser {
  userId: number;
  email: string;
  key: string;
  keyId: number;
}

let counter = 0;

/** A new user with one key of the given scopes (and credits when > 0). */
export async function userWithKey(fleet: Pick<Fleet, 'admin'>, scopes: string, credits = 0): Promise<TestUser> {
  const email = `user${Date.now()}${counter++}@example.test`;
  const user = await fleet.admin('user:create', '--email', email, ...(credits ? ['--credits', String(credits)] : []));
  const key = await fleet.admin('key:create', '--email', email, '--scopes', scopes);
  return { userId: Number(user.user_id), email, key: String(key.key), keyId: Number(key.id) };
}

/** fetch against the gateway with a Bearer key, JSON body in and out. */
// Bodies are arbitrary JSON that each test asserts field by field, hence `any`.

export async function api(
  fleet: Pick<Fleet, 'baseUrl'>,
  method: string,
  urlPath: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  // Untyped JSON answers: each test asserts the shape it expects.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${fleet.baseUrl}${urlPath}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text so a test can show it */
  }
  // Every /api/v1 response must match the OpenAPI description (docs/openapi.md); /media is not JSON.
  if (OPENAPI_VALIDATION && urlPath.startsWith('/api/v1/'))
    assertResponseMatches(method, urlPath, res.status, res.headers, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Response validation against the OpenAPI document; E2E_OPENAPI_VALIDATION=0 turns it off. */
const OPENAPI_VALIDATION = process.env.E2E_OPENAPI_VALIDATION !== '0';
