import { execFileSync } from 'node:child_process';
import net from 'node:net';

/**
 * Where the test infrastructure lives. Order: a URL from the environment; else the local service
 * on its default port; else, only when Docker works, a container started by testcontainers.
 */
export interface Infra {
  /** Admin connection to Postgres (any database; used to create and drop test databases). */
  postgresAdminUrl: string;
  /** Broker URL without vhost. */
  amqpBaseUrl: string;
  /** RabbitMQ management API base (http://user:pass@host:15672), used to create vhosts. */
  rabbitManagementUrl: string;
}

const DEFAULTS: Infra = {
  postgresAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  amqpBaseUrl: 'amqp://guest:guest@127.0.0.1:5672',
  rabbitManagementUrl: 'http://guest:guest@127.0.0.1:15672',
};

let resolved: Promise<Infra> | null = null;

export function infra(): Promise<Infra> {
  resolved ??= resolveInfra();
  return resolved;
}

async function resolveInfra(): Promise<Infra> {
  const env = process.env;
  const result: Infra = {
    postgresAdminUrl: env.TEST_DATABASE_URL ?? DEFAULTS.postgresAdminUrl,
    amqpBaseUrl: env.TEST_AMQP_URL ?? DEFAULTS.amqpBaseUrl,
    rabbitManagementUrl: env.TEST_RABBITMQ_MANAGEMENT_URL ?? DEFAULTS.rabbitManagementUrl,
  };
  const pgLocal = env.TEST_DATABASE_URL !== undefined || (await reachable(new URL(result.postgresAdminUrl)));
  const amqpLocal = env.TEST_AMQP_URL !== undefined || (await reachable(new URL(result.amqpBaseUrl)));
  if (pgLocal && amqpLocal) return result;
  if (!dockerWorks()) {
    throw new Error(
      'Test infrastructure not found: set TEST_DATABASE_URL / TEST_AMQP_URL, start Postgres on 5432 and RabbitMQ on 5672, or make Docker available for testcontainers.',
    );
  }
  const containers = await import('./containers');
  if (!pgLocal) result.postgresAdminUrl = await containers.startPostgres();
  if (!amqpLocal) {
    const rabbit = await containers.startRabbit();
    result.amqpBaseUrl = rabbit.amqpUrl;
    result.rabbitManagementUrl = rabbit.managementUrl;
  }
  return result;
}

function reachable(url: URL): Promise<boolean> {
  const port = Number(url.port || (url.protocol.startsWith('amqp') ? 5672 : 5432));
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function dockerWorks(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
