import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@mf/testing';
import { accepting } from './private-broker';

const run = promisify(execFile);

/**
 * A RabbitMQ cluster of three (or more) nodes on this machine, from Debian's rabbitmq-server, beside
 * the system's node on 5672 (left alone). Each node has its own name, ports, data directory and a
 * configuration file of its own (the system's binds 5672); all run as the rabbitmq user, so they
 * share its Erlang cookie with each other and with rabbitmqctl. Management is off (its port is the
 * system node's). The second and later nodes join the first.
 */
export interface ClusterNode {
  /** Erlang node name, e.g. mfc0-40123@localhost. */
  name: string;
  port: number;
  /** amqp://guest:guest@127.0.0.1:<port>/ */
  url: string;
  running: () => boolean;
}

export interface RabbitCluster {
  nodes: ClusterNode[];
  /** rabbitmqctl against one node; resolves its stdout. */
  ctl: (node: ClusterNode, ...args: string[]) => Promise<string>;
  /** Kills a node (SIGKILL to its process group: the machine is lost, not shut down). */
  kill: (node: ClusterNode) => Promise<void>;
  /** Stops every node and removes their data (`keepLogs`: leaves each node's logs and says where). */
  close: (opts?: { keepLogs?: boolean }) => Promise<void>;
}

const BIN = '/usr/lib/rabbitmq/bin';
const RABBIT_HOME = '/var/lib/rabbitmq';

export function rabbitClusterAvailable(): boolean {
  return fs.existsSync(path.join(BIN, 'rabbitmq-server'));
}

/** As the rabbitmq user, with its home (and so its cookie). */
function asRabbitmq(command: string, args: string[]): [string, string[]] {
  return ['runuser', ['-u', 'rabbitmq', '--', command, ...args]];
}

export async function startRabbitCluster(size = 3, opts: { startTimeoutMs?: number } = {}): Promise<RabbitCluster> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-cluster-'));
  fs.chmodSync(base, 0o755);
  const procs = new Map<string, ChildProcess>();
  const nodes: ClusterNode[] = [];
  const envs = new Map<string, NodeJS.ProcessEnv>();

  const ctl = async (node: ClusterNode, ...args: string[]): Promise<string> => {
    const [cmd, argv] = asRabbitmq(path.join(BIN, 'rabbitmqctl'), ['-n', node.name, ...args]);
    const { stdout } = await run(cmd, argv, { env: { ...process.env, HOME: RABBIT_HOME }, timeout: 120_000 });
    return stdout;
  };

  const startNode = async (i: number): Promise<ClusterNode> => {
    const port = await freePort();
    const distPort = await freePort();
    const dir = path.join(base, `node${i}`);
    fs.mkdirSync(dir);
    const name = `mfc${i}-${port}@localhost`;
    fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].');
    // Its own listener: the system configuration pins 5672.
    fs.writeFileSync(
      path.join(dir, 'rabbitmq.conf'),
      `listeners.tcp.local = 127.0.0.1:${port}\nloopback_users.guest = true\n`,
    );
    await run('chown', ['-R', 'rabbitmq:rabbitmq', dir]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: RABBIT_HOME,
      RABBITMQ_NODENAME: name,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: path.join(dir, 'pid'),
    };
    envs.set(name, env);
    const log = fs.createWriteStream(path.join(dir, 'console.log'), { flags: 'a' });
    const [cmd, argv] = asRabbitmq(path.join(BIN, 'rabbitmq-server'), []);
    // runuser keeps the environment it is given (no login shell); its own process group, so a
    // kill reaches runuser, the shell wrapper and beam together.
    const proc = spawn(cmd, argv, { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.pipe(log);
    proc.stderr?.pipe(log);
    procs.set(name, proc);
    const node: ClusterNode = {
      name,
      port,
      url: `amqp://guest:guest@127.0.0.1:${port}/`,
      running: () => proc.exitCode === null && proc.signalCode === null,
    };
    const until = Date.now() + (opts.startTimeoutMs ?? 120_000);
    while (!(await accepting(port))) {
      if (!node.running()) throw new Error(`RabbitMQ node ${name} exited; see ${dir}/console.log`);
      if (Date.now() > until)
        throw new Error(`RabbitMQ node ${name} not accepting after start; see ${dir}/console.log`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await ctl(node, 'await_startup');
    return node;
  };

  const kill = async (node: ClusterNode): Promise<void> => {
    const proc = procs.get(node.name);
    if (!proc || !node.running()) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await exited;
    while (await accepting(node.port)) await new Promise((r) => setTimeout(r, 100));
  };

  const close = async (closing: { keepLogs?: boolean } = {}): Promise<void> => {
    for (const node of nodes) await kill(node);
    if (closing.keepLogs) {
      for (const dir of fs.readdirSync(base))
        fs.rmSync(path.join(base, dir, 'mnesia'), { recursive: true, force: true });
      console.log(`RabbitMQ cluster logs kept in ${base}/node*/log and console.log`);
      return;
    }
    fs.rmSync(base, { recursive: true, force: true });
  };

  try {
    nodes.push(...(await Promise.all(Array.from({ length: size }, (_, i) => startNode(i)))));
    for (const node of nodes.slice(1)) {
      await ctl(node, 'stop_app');
      await ctl(node, 'join_cluster', nodes[0].name);
      await ctl(node, 'start_app');
    }
    const status = await ctl(nodes[0], 'cluster_status', '--formatter', 'json');
    const running = (JSON.parse(status) as { running_nodes: string[] }).running_nodes;
    if (running.length !== size) throw new Error(`cluster has ${running.length} running nodes, not ${size}: ${status}`);
  } catch (err) {
    await close();
    throw err;
  }
  return { nodes, ctl, kill, close };
}
