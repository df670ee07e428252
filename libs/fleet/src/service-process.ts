import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import {
  COMPILED_ENV,
  COMPILED_NODE_FLAGS,
  REPO_ROOT,
  serviceBuildEntry,
  serviceEntry,
  type ServiceName,
} from './services';

export interface ServiceProcess {
  name: ServiceName;
  port: number;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends a signal and waits for the exit; SIGKILL after `graceMs`. */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<number | string>;
}

/** Where a service's output goes: each line to a callback, or straight into a file (the parent never handles a line). */
export type ServiceOutput = ((line: string, stream: 'stdout' | 'stderr') => void) | { file: string };

/** How a service runs: from its TypeScript sources (node + tsx), or its production build (services/<name>/dist). */
export type ServiceForm = 'source' | 'compiled';

/**
 * Runs one service as a child process (node + tsx from source, or node on the production build as
 * the images run it). The child gets its own environment: nothing leaks between services but what we pass.
 */
export function startServiceProcess(
  name: ServiceName,
  port: number,
  env: NodeJS.ProcessEnv,
  output: ServiceOutput,
  form: ServiceForm = 'source',
  /** Extra flags for node itself (benches: --cpu-prof ...), before the entry. */
  nodeArgs: string[] = [],
): ServiceProcess {
  const fd = typeof output === 'function' ? null : fs.openSync(output.file, 'a');
  const args = [
    ...nodeArgs,
    ...(form === 'compiled'
      ? [...COMPILED_NODE_FLAGS, serviceBuildEntry(name)]
      : ['--import', 'tsx', serviceEntry(name)]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...(form === 'compiled' ? COMPILED_ENV : {}), ...env, PORT: String(port) },
    stdio: fd === null ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd],
  });
  if (fd !== null) fs.closeSync(fd);
  if (typeof output === 'function') {
    readline.createInterface({ input: child.stdout! }).on('line', (l) => output(l, 'stdout'));
    readline.createInterface({ input: child.stderr! }).on('line', (l) => output(l, 'stderr'));
  }
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  return { name, port, child, exited, stop };
}

/** Polls /readyz until it answers 200, the process dies, or the timeout passes. */
export async function waitReady(proc: ServiceProcess, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void proc.exited.then((c) => (exitedWith = c));
  while (Date.now() < until) {
    if (exitedWith !== undefined) throw new Error(`${proc.name} exited (${exitedWith}) before it was ready`);
    try {
      const res = await fetch(`http://127.0.0.1:${proc.port}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${proc.name} not ready after ${timeoutMs} ms`);
}
