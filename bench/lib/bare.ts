import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import readline from 'node:readline';
import { COMPILED_ENV, COMPILED_NODE_FLAGS, REPO_ROOT } from '@mf/fleet';
import { NODE_BUNDLE } from '../../scripts/build/services';

export interface BareProcess {
  pid: number;
  /** The first JSON line the process printed (its port, or that it is ready). */
  hello: Record<string, unknown>;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/**
 * The baseline bundled by esbuild into one CommonJS file, the way scripts/build bundles a service,
 * so a compiled service is compared with a compiled baseline (plain node on both sides).
 */
async function compiledBare(script: string): Promise<string> {
  const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-bare-')), `${script}.js`);
  // deps.ts loads express and amqplib at run time from the libraries' directories; bundled, they
  // are inlined from those same directories instead.
  const inlineDeps: Plugin = {
    name: 'bench-deps',
    setup(b) {
      b.onLoad({ filter: /bench[\\/]lib[\\/]deps\.ts$/ }, () => ({
        contents: "module.exports = { express: require('express'), amqp: require('amqplib') };",
        loader: 'js',
        resolveDir: REPO_ROOT,
      }));
    },
  };
  await build({
    entryPoints: [path.join(REPO_ROOT, 'bench', 'lib', `${script}.ts`)],
    outfile,
    ...NODE_BUNDLE,
    external: ['pg-native'],
    nodePaths: [
      path.join(REPO_ROOT, 'libs', 'http', 'node_modules'),
      path.join(REPO_ROOT, 'libs', 'bus', 'node_modules'),
    ],
    plugins: [inlineDeps],
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Starts a baseline process (bench/lib/bare-*.ts) the way the services run (node + tsx from
 * source, or compiled: plain node on an esbuild bundle), its own process, so it gets a core of
 * its own rather than sharing the load generator's event loop.
 */
export async function startBare(
  script: 'bare-server' | 'bare-relay',
  env: Record<string, string>,
  compiled = false,
): Promise<BareProcess> {
  const args = compiled
    ? [...COMPILED_NODE_FLAGS, await compiledBare(script)]
    : ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'lib', `${script}.ts`)];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(compiled ? COMPILED_ENV : {}), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      child.stdout.resume(); // nothing else is expected; never let the pipe fill
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`${script} printed ${line}`));
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  return {
    pid: child.pid!,
    hello,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The bare express server on the fleet's database (the bench creates the bench.* tables its routes
 * use); `extraEnv`: the provider and user of POST /submit-job.
 */
export async function startBareServer(
  databaseUrl: string,
  rowTable = 'jobs.jobs',
  compiled = false,
  extraEnv: Record<string, string> = {},
): Promise<BareProcess & { url: string }> {
  const bare = await startBare(
    'bare-server',
    {
      DATABASE_URL: databaseUrl,
      BARE_ROW_TABLE: rowTable,
      BARE_POOL_MAX: process.env.BENCH_PG_POOL ?? '10',
      ...extraEnv,
    },
    compiled,
  );
  return { ...bare, url: `http://127.0.0.1:${Number(bare.hello.port)}` };
}
