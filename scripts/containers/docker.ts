/** The few Docker CLI calls the container smoke test makes (classic builder: no buildx here). */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** Runs `docker <args>`; resolves its stdout (trimmed), rejects with its stderr. */
export async function docker(...args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileP('docker', args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, DOCKER_BUILDKIT: '0' },
    });
    return stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`docker ${args.slice(0, 3).join(' ')} ...: ${(e.stderr || e.message).trim()}`);
  }
}

/** The id of an image, or null when there is none by that name. */
export async function imageId(ref: string): Promise<string | null> {
  return docker('image', 'inspect', '-f', '{{.Id}}', ref).catch(() => null);
}

/**
 * `docker build` with the classic builder, output to `logFile`; rejects with the log's tail.
 * Removes the image the tag named before, when the build replaced it (its last layers only: the
 * layers it shares with the new image stay), so repeated runs do not pile up old images.
 */
export async function buildImage(opts: {
  tag: string;
  buildArgs?: Record<string, string>;
  target?: string;
  /** The build context (default: the current directory). */
  context?: string;
  labels?: Record<string, string>;
  logFile: string;
}): Promise<void> {
  const before = await imageId(opts.tag);
  const args = [
    'build',
    '-t',
    opts.tag,
    ...Object.entries(opts.buildArgs ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
  ];
  for (const [k, v] of Object.entries(opts.labels ?? {})) args.push('--label', `${k}=${v}`);
  if (opts.target) args.push('--target', opts.target);
  args.push(opts.context ?? '.');
  const log = fs.openSync(opts.logFile, 'w');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('docker', args, { stdio: ['ignore', log, log], env: { ...process.env, DOCKER_BUILDKIT: '0' } });
    child.on('exit', (c) => resolve(c));
    child.on('error', () => resolve(null));
  });
  fs.closeSync(log);
  if (code !== 0) {
    const tail = fs.readFileSync(opts.logFile, 'utf8').split('\n').slice(-30).join('\n');
    throw new Error(`docker build ${opts.tag} failed (exit ${code}); log ${opts.logFile}:\n${tail}`);
  }
  const after = await imageId(opts.tag);
  if (before && after && before !== after) await docker('image', 'rm', before).catch(() => undefined);
}

export async function imageSize(ref: string): Promise<number> {
  return Number(await docker('image', 'inspect', '-f', '{{.Size}}', ref));
}

export interface ContainerState {
  running: boolean;
  exitCode: number;
  oomKilled: boolean;
}

export async function containerState(name: string): Promise<ContainerState> {
  const [running, exitCode, oom] = (
    await docker('inspect', '-f', '{{.State.Running}} {{.State.ExitCode}} {{.State.OOMKilled}}', name)
  ).split(' ');
  return { running: running === 'true', exitCode: Number(exitCode), oomKilled: oom === 'true' };
}

/** Memory use per container name, as `docker stats` reports it (cgroup usage less page cache). */
export async function memoryUsage(names: string[]): Promise<Record<string, string>> {
  const out = await docker('stats', '--no-stream', '--format', '{{.Name}}\t{{.MemUsage}}', ...names);
  return Object.fromEntries(
    out
      .split('\n')
      .map((l) => l.split('\t') as [string, string])
      .map(([n, m]) => [n, m.split(' / ')[0]]),
  );
}

/** `docker stop -t grace`; resolves the seconds it took and the container's exit code. */
export async function stopContainer(
  name: string,
  graceSec: number,
): Promise<{ seconds: number; state: ContainerState }> {
  const started = Date.now();
  await docker('stop', '-t', String(graceSec), name);
  return { seconds: (Date.now() - started) / 1000, state: await containerState(name) };
}
