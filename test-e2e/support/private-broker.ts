import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@mf/testing';

/**
 * A RabbitMQ node of our own, on free ports with its own data directory, so a test can crash and
 * restart "the broker" without touching the shared one that other test files use at the same time.
 * It is Debian's rabbitmq-server (the same one the project installs), started in the foreground.
 */
export interface PrivateBroker {
  /** amqp://guest:guest@127.0.0.1:<port>/ (the default vhost; guest may connect from loopback). */
  url: string;
  port: number;
  /** Kills the node (SIGKILL to its whole process group: a crash, not a clean stop). */
  kill: () => Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it accepts connections. */
  start: () => Promise<void>;
  /** Stops it for good and removes its data. */
  close: () => Promise<void>;
}

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';

/** Whether something accepts TCP connections on 127.0.0.1:<port>. */
export async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True when this machine can run a second RabbitMQ node (Debian's package is installed). */
export function privateBrokerAvailable(): boolean {
  return fs.existsSync(SERVER);
}

export async function startPrivateBroker(opts: { startTimeoutMs?: number } = {}): Promise<PrivateBroker> {
  if (!privateBrokerAvailable())
    throw new Error(
      `a private RabbitMQ node needs Debian's rabbitmq-server (${SERVER}): apt-get install rabbitmq-server`,
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-broker-'));
  const port = await freePort();
  const distPort = await freePort();
  const name = `mf${port}@localhost`;
  fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].'); // no management plugin: its port is the shared node's
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RABBITMQ_NODENAME: name,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'no-config'), // not /etc/rabbitmq's: that one binds 5672
    RABBITMQ_PID_FILE: path.join(dir, 'pid'),
  };
  let child: ChildProcess | null = null;
  const log = fs.createWriteStream(path.join(dir, 'console.log'), { flags: 'a' });

  const start = async (): Promise<void> => {
    // Its own process group, so a kill reaches the shell wrapper, erl and beam together.
    const proc = spawn(SERVER, [], { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.pipe(log, { end: false });
    proc.stderr?.pipe(log, { end: false });
    child = proc;
    const until = Date.now() + (opts.startTimeoutMs ?? 90_000);
    while (Date.now() < until) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`private RabbitMQ exited (${proc.exitCode ?? proc.signalCode}); see ${dir}/console.log`);
      if (await accepting(port)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `private RabbitMQ not accepting on ${port} after ${opts.startTimeoutMs ?? 90_000} ms; see ${dir}/console.log`,
    );
  };

  const kill = async (): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await exited;
    // The port closes with the process; wait so a restart cannot race the old listener.
    while (await accepting(port)) await new Promise((r) => setTimeout(r, 100));
    child = null;
  };

  await start();
  return {
    url: `amqp://guest:guest@127.0.0.1:${port}/`,
    port,
    kill,
    start,
    close: async () => {
      await kill();
      log.end();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
