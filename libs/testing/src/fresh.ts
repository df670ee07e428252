import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, escapeIdentifier } from 'pg';
import { infra } from './infra';

export const TEST_DB_PREFIX = 'mf_test_';

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const { postgresAdminUrl } = await infra();
  const client = new Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop: () => Promise<void>;
}

/** A new, empty database: every service schema of a test run lives in it, and nothing else does. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueName(TEST_DB_PREFIX);
  await admin((c) => c.query(`CREATE DATABASE ${escapeIdentifier(name)}`));
  const { postgresAdminUrl } = await infra();
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      admin((c) => c.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}

export interface TestVhost {
  url: string;
  name: string;
  drop: () => Promise<void>;
}

/** A new RabbitMQ vhost: queues and exchanges of one test run never meet another's. */
export async function createTestVhost(): Promise<TestVhost> {
  const { amqpBaseUrl, rabbitManagementUrl } = await infra();
  const name = uniqueName('mf_test_');
  const amqp = new URL(amqpBaseUrl);
  const user = decodeURIComponent(amqp.username || 'guest');
  await vhostApi(rabbitManagementUrl, 'PUT', `/api/vhosts/${name}`, undefined, () => rabbitmqctl(['add_vhost', name]));
  await vhostApi(
    rabbitManagementUrl,
    'PUT',
    `/api/permissions/${name}/${encodeURIComponent(user)}`,
    { configure: '.*', write: '.*', read: '.*' },
    () => rabbitmqctl(['set_permissions', '-p', name, user, '.*', '.*', '.*']),
  );
  amqp.pathname = `/${name}`;
  return {
    url: amqp.toString(),
    name,
    drop: () =>
      vhostApi(rabbitManagementUrl, 'DELETE', `/api/vhosts/${name}`, undefined, () =>
        rabbitmqctl(['delete_vhost', name]),
      ),
  };
}

async function vhostApi(
  base: string,
  method: string,
  path: string,
  body: unknown,
  fallback: () => void,
): Promise<void> {
  const url = new URL(path, base);
  const auth = Buffer.from(
    `${decodeURIComponent(url.username || new URL(base).username)}:${decodeURIComponent(new URL(base).password)}`,
  ).toString('base64');
  try {
    const res = await fetch(`${url.protocol}//${url.host}${url.pathname}`, {
      method,
      headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok && !(method === 'DELETE' && res.status === 404))
      throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  } catch (err) {
    // No management plugin: the local rabbitmqctl does the same (needs to run on the broker host).
    if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') fallback();
    else throw err;
  }
}

function rabbitmqctl(args: string[]): void {
  execFileSync('rabbitmqctl', args, { stdio: 'ignore', timeout: 30_000 });
}

/** Drops databases and vhosts left by earlier runs that crashed before their teardown. */
export async function dropStaleTestResources(olderThanMs = 6 * 3600_000): Promise<void> {
  const cutoff = Date.now() - olderThanMs;
  const stale = (name: string): boolean => {
    const stamp = parseInt(name.slice(TEST_DB_PREFIX.length).split('_')[0] ?? '', 36);
    return Number.isFinite(stamp) && stamp < cutoff;
  };
  const names = await admin(async (c) =>
    (
      await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
        `${TEST_DB_PREFIX}%`,
      ])
    ).rows.map((r) => r.datname),
  );
  for (const name of names.filter(stale))
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`)).catch(
      () => undefined,
    );
}
