/**
 * The one-command start (npm start): runs all six services with prefixed, readable logs, waits
 * until every one is ready, makes sure a demo user with credits and an all-scopes key exists, and
 * prints the base URL and the key. Ctrl-C stops everything cleanly (SIGTERM to each service).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, escapeIdentifier } from 'pg';
import { prettyFactory } from 'pino-pretty';
import { REPO_ROOT, SERVICES, startServiceProcess, waitReady, type ServiceProcess } from '@mf/fleet';

const run = promisify(execFile);

const DEMO_EMAIL = 'demo@mediaforge.local';
const DEMO_CREDITS = '100000';
const DEMO_KEY_FILE = process.env.DEMO_KEY_FILE ?? path.join(REPO_ROOT, '.data', 'demo-key.json');

const gatewayPort = Number(process.env.PORT ?? 8080);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mediaforge',
  AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
  PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${gatewayPort}`,
};
const baseUrl = env.PUBLIC_BASE_URL!;

const COLORS = [36, 33, 35, 32, 34, 31];
const pretty = prettyFactory({
  colorize: process.stdout.isTTY,
  ignore: 'pid,hostname,service',
  translateTime: 'HH:MM:ss.l',
  singleLine: true,
});

function printer(name: string, index: number): (line: string) => void {
  const tag = `\x1b[${COLORS[index % COLORS.length]}m${name.padEnd(18)}\x1b[0m|`;
  return (line) => {
    let text = line;
    if (line.startsWith('{')) {
      try {
        text = pretty(JSON.parse(line)).trimEnd();
      } catch {
        /* not a log line: print as is */
      }
    }
    process.stdout.write(`${tag} ${text}\n`);
  };
}

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
      console.log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'services/gateway/src/admin/cli.ts'), ...args],
    { cwd: REPO_ROOT, env },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function keyWorks(key: string): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/v1/account`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status === 200;
}

/** First run: a demo user with credits and an all-scopes key, kept in .data/ so later runs print it again. */
async function demoKey(): Promise<{ key: string; created: boolean }> {
  if (fs.existsSync(DEMO_KEY_FILE)) {
    const saved = JSON.parse(fs.readFileSync(DEMO_KEY_FILE, 'utf8')) as { key: string; database: string };
    if (saved.database === env.DATABASE_URL && (await keyWorks(saved.key))) return { key: saved.key, created: false };
  }
  try {
    await admin('user:create', '--email', DEMO_EMAIL, '--credits', DEMO_CREDITS);
  } catch (err) {
    if (!String((err as { stderr?: string }).stderr).includes('already exists')) throw err;
  }
  const created = await admin('key:create', '--email', DEMO_EMAIL, '--scopes', 'all', '--name', 'demo');
  fs.mkdirSync(path.dirname(DEMO_KEY_FILE), { recursive: true });
  fs.writeFileSync(DEMO_KEY_FILE, JSON.stringify({ key: created.key, database: env.DATABASE_URL }), { mode: 0o600 });
  return { key: String(created.key), created: true };
}

async function main(): Promise<void> {
  await ensureDatabase(env.DATABASE_URL!);
  const procs: ServiceProcess[] = [];
  let stopping = false;

  const stopAll = async (code: number): Promise<never> => {
    stopping = true;
    console.log('\nstopping the fleet...');
    await Promise.all(procs.map((p) => p.stop('SIGTERM')));
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  SERVICES.forEach((s, i) => {
    const port =
      s.name === 'gateway'
        ? gatewayPort
        : Number(process.env[`${s.name.toUpperCase().replace(/-/g, '_')}_PORT`] ?? s.port);
    const proc = startServiceProcess(s.name, port, env, printer(s.name, i));
    void proc.exited.then((code) => {
      if (!stopping) console.error(`${s.name} exited (${code}); the others keep running. Ctrl-C to stop.`);
    });
    procs.push(proc);
  });

  try {
    await Promise.all(procs.map((p) => waitReady(p)));
  } catch (err) {
    console.error(`start failed: ${(err as Error).message}`);
    await stopAll(1);
  }

  const { key, created } = await demoKey();
  const line = '-'.repeat(72);
  console.log(`\n${line}\n mediaforge is running\n`);
  console.log(` base URL : ${baseUrl}`);
  console.log(` dashboard: ${baseUrl}/dashboard/  (sign up there)`);
  console.log(
    ` API key  : ${key}${created ? '   (new: demo user ' + DEMO_EMAIL + ' with ' + DEMO_CREDITS + ' credits)' : ''}`,
  );
  console.log(`\n try it   : curl -s ${baseUrl}/api/v1/account -H "Authorization: Bearer ${key}"`);
  console.log(` stop     : Ctrl-C\n${line}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
