import express, { type Express, type Router } from 'express';
import type { Server } from 'node:http';
import type client from 'prom-client';
import { Bus } from '@mf/bus';
import { createDb, migrate, pingDb, type Knex, type Migration } from '@mf/db';
import { answerMethodNotAllowed, createHttpApp, finish } from '@mf/http';
import { createLogger, type Logger } from '@mf/logger';
import { startTracing, type Tracing, type TracingSettings } from '@mf/tracing';
import { createRegistry, mountHealth } from './health';
import { closeServer, listen } from './server';
import { settleHeapAfterStart } from './settle-heap';
import { startupGate } from './startup-gate';
import { onShutdown, type ShutdownStep } from './shutdown';

export interface BaseServiceConfig extends TracingSettings {
  PORT: number;
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_QUORUM_QUEUES?: boolean;
  AMQP_RECONNECT_MAX_MS?: number;
  RPC_TIMEOUT_MS: number;
  SHUTDOWN_TIMEOUT_MS: number;
  REQUEST_TIMEOUT_MS: number;
  HEADERS_TIMEOUT_MS: number;
  TRUST_PROXY: boolean | number | string[];
}

export interface ServiceDeps<C> {
  config: C;
  logger: Logger;
  db: Knex;
  bus: Bus;
  /** Mount the service's routes here (before the 404 and error handlers). */
  router: Router;
  registry: client.Registry;
}

export interface ServiceSpec<C extends BaseServiceConfig> {
  name: string;
  config: C;
  logger: Logger;
  /** The Postgres schema this service owns. */
  schema: string;
  migrations: Migration[];
  /**
   * Wires the service's own parts once the database is migrated and the broker connected: RPC
   * servers, consumers, routes, workers. Returns extra shutdown steps (run before the bus closes).
   */
  setup: (deps: ServiceDeps<C>) => Promise<ShutdownStep[] | void>;
  /** Run migrations and exit (a deployment's migration job). */
  migrateOnly?: boolean;
  /** The running tracer, if tracing is on: shut down last, so the spans of the shutdown go out too. */
  tracing?: Tracing | null;
}

export interface ServiceHandle {
  server: Server;
  app: Express;
  db: Knex;
  bus: Bus;
  stop: (reason: string) => Promise<void>;
}

/**
 * The start-up order every service shares: HTTP up first (healthz answers, readyz says not ready),
 * then the schema migrated, then the broker connected, then the service's own wiring; only then
 * does readyz turn ready. Shutdown runs the reverse on SIGTERM.
 */
export async function startService<C extends BaseServiceConfig>(spec: ServiceSpec<C>): Promise<ServiceHandle> {
  const { config, logger } = spec;
  const db = createDb({ url: config.DATABASE_URL, schema: spec.schema });

  if (spec.migrateOnly) {
    const applied = await migrate(db, spec.schema, spec.migrations);
    logger.info({ applied }, 'migrations done');
    await db.destroy();
    process.exit(0);
  }

  const registry = createRegistry(spec.name);
  const app = createHttpApp({ logger, registry, trustProxy: config.TRUST_PROXY });
  const bus = new Bus({
    url: config.AMQP_URL,
    service: spec.name,
    logger,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    registry,
    quorumQueues: config.AMQP_QUORUM_QUEUES,
    reconnectMaxMs: config.AMQP_RECONNECT_MAX_MS,
  });
  let ready = false;
  mountHealth(app, registry, {
    startup: () => {
      if (!ready) throw new Error('starting');
    },
    database: () => pingDb(db).then(() => undefined),
    broker: () => {
      if (!bus.connected) throw new Error('not connected');
    },
  });
  app.use(startupGate(() => ready));
  const router = express.Router();
  app.use(router);
  finish(app, logger);

  const server = await listen(app, {
    port: config.PORT,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
  });
  logger.info({ port: config.PORT }, 'http listening');

  let extraSteps: ShutdownStep[] = [];
  const stop = onShutdown(logger, config.SHUTDOWN_TIMEOUT_MS, [
    { name: 'http', run: () => closeServer(server) },
    {
      name: 'service',
      run: async () => {
        for (const s of extraSteps) await s.run();
      },
    },
    { name: 'bus', run: () => bus.close(config.SHUTDOWN_TIMEOUT_MS / 2) },
    { name: 'database', run: () => db.destroy() },
    ...(spec.tracing ? [{ name: 'tracing', run: () => spec.tracing!.shutdown() }] : []),
  ]);

  const applied = await retry(() => migrate(db, spec.schema, spec.migrations), logger, 'database');
  if (applied.length) logger.info({ applied }, 'migrations applied');
  await bus.start();
  extraSteps = (await spec.setup({ config, logger, db, bus, router, registry })) ?? [];
  answerMethodNotAllowed(router);
  ready = true;
  logger.info('ready');
  settleHeapAfterStart();
  return { server, app, db, bus, stop };
}

/** Retries a start-up step while a dependency comes up (compose starts everything at once). */
async function retry<T>(fn: () => Promise<T>, logger: Logger, what: string, attempts = 30): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isConnectionError(err)) throw err;
      logger.warn({ err: (err as Error).message, attempt: i }, `${what} not available yet; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(1000 * i, 5000)));
    }
  }
}

const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P03',
  '3D000',
]);

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e.code !== undefined && CONNECTION_ERRORS.has(e.code)) || /Timeout acquiring a connection/.test(e.message ?? '')
  );
}

/**
 * The body of every service's main.ts: logger, validated config (a bad variable exits with its
 * name), then startService. Any start-up failure is logged and exits non-zero.
 */
export function runMain<C extends BaseServiceConfig & { LOG_LEVEL: string }>(
  name: string,
  loadConfig: () => C,
  build: (config: C, logger: Logger) => Omit<ServiceSpec<C>, 'name' | 'config' | 'logger' | 'migrateOnly' | 'tracing'>,
): void {
  let logger = createLogger(name);
  const fail = (err: unknown): never => {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  };
  try {
    const config = loadConfig();
    logger.level = config.LOG_LEVEL;
    const migrateOnly = process.argv.includes('--migrate-only');
    // Before anything serves: the SDK patches the modules whose work it traces.
    (migrateOnly ? Promise.resolve(null) : startTracing(name, config))
      .then((tracing) => {
        // With tracing, every line logged inside a span carries its trace and span ids.
        if (tracing) logger = createLogger(name, config.LOG_LEVEL, tracing.logFields);
        return startService({ name, config, logger, migrateOnly, tracing, ...build(config, logger) });
      })
      .catch(fail);
  } catch (err) {
    fail(err);
  }
}
