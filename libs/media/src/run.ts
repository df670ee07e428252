import { spawn } from 'node:child_process';

export type FfmpegErrorKind = 'failed' | 'timeout' | 'aborted' | 'spawn';

/**
 * ffmpeg (or ffprobe) did not finish successfully. `stderrTail` holds the last few KB of its
 * stderr for logs; it may contain paths and input details, so it is never shown to clients (the
 * message does not include it).
 */
export class FfmpegError extends Error {
  readonly kind: FfmpegErrorKind;
  readonly exitCode?: number;
  readonly exitSignal?: string;
  readonly stderrTail: string;

  constructor(
    kind: FfmpegErrorKind,
    opts: { exitCode?: number; exitSignal?: string; stderrTail: string; cause?: unknown; binary?: string },
  ) {
    super(describe(kind, opts), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FfmpegError';
    this.kind = kind;
    this.exitCode = opts.exitCode;
    this.exitSignal = opts.exitSignal;
    this.stderrTail = opts.stderrTail;
  }
}

function describe(kind: FfmpegErrorKind, opts: { exitCode?: number; exitSignal?: string; binary?: string }): string {
  const bin = opts.binary ?? 'ffmpeg';
  switch (kind) {
    case 'failed':
      return opts.exitCode !== undefined
        ? `${bin} exited with code ${opts.exitCode}`
        : `${bin} was killed by ${opts.exitSignal ?? 'a signal'}`;
    case 'timeout':
      return `${bin} timed out`;
    case 'aborted':
      return `${bin} was aborted`;
    case 'spawn':
      return `${bin} could not be started`;
  }
}

export interface RunFfmpegOptions {
  ffmpegPath: string;
  timeoutMs: number;
  signal?: AbortSignal;
  cwd?: string;
  /** How long ffmpeg gets to exit after SIGTERM before SIGKILL (default 2000 ms). */
  killGraceMs?: number;
  /** Called with ffmpeg's output time (µs) as it encodes (its `-progress` report on stdout). */
  onProgress?: (outTimeUs: number) => void;
}

/**
 * Runs ffmpeg with these arguments (no shell; `-nostdin` and `-hide_banner` are prepended) and
 * resolves once it exited with code 0. On timeout or abort the process gets SIGTERM, then SIGKILL
 * after a grace period; the promise settles only once the process is gone, so callers that count
 * running processes can trust it.
 */
export async function runFfmpeg(args: string[], opts: RunFfmpegOptions): Promise<void> {
  const progress = opts.onProgress ? ['-progress', 'pipe:1', '-nostats'] : [];
  await runProcess(opts.ffmpegPath, ['-nostdin', '-hide_banner', ...progress, ...args], { ...opts, binary: 'ffmpeg' });
}

/** Keeps this much of stderr: enough for ffmpeg's final error lines. */
const STDERR_TAIL_BYTES = 8 * 1024;
/** ffprobe's JSON is small; this only guards memory against a runaway process. */
const MAX_STDOUT_BYTES = 16 * 1024 * 1024;

export interface RunProcessOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  cwd?: string;
  killGraceMs?: number;
  captureStdout?: boolean;
  binary?: string;
  /** Reads stdout as ffmpeg's `-progress` key=value lines (instead of capturing it). */
  onProgress?: (outTimeUs: number) => void;
}

/** Spawns a media tool and settles after it exited; rejects with FfmpegError. Shared with probe. */
export function runProcess(command: string, args: string[], opts: RunProcessOptions): Promise<{ stdout: string }> {
  const binary = opts.binary ?? 'ffmpeg';
  if (opts.signal?.aborted) return Promise.reject(new FfmpegError('aborted', { stderrTail: '', binary }));

  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      shell: false,
      stdio: ['ignore', opts.captureStdout || opts.onProgress ? 'pipe' : 'ignore', 'pipe'],
      windowsHide: true,
    });

    let stderr = Buffer.alloc(0);
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stoppedFor: 'timeout' | 'aborted' | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;

    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      // Trim only now and then so a chatty process does not cost a copy per chunk.
      if (stderr.length > 2 * STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    const onProgress = opts.onProgress;
    if (onProgress && !opts.captureStdout) {
      child.stdout?.on('data', progressReader(onProgress));
    } else
      child.stdout?.on('data', (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes <= MAX_STDOUT_BYTES) stdoutChunks.push(chunk);
      });

    const stop = (reason: 'timeout' | 'aborted') => {
      if (stoppedFor || settled) return;
      stoppedFor = reason;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), opts.killGraceMs ?? 2000);
    };
    const timeout = setTimeout(() => stop('timeout'), opts.timeoutMs);
    const onAbort = () => stop('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const tail = () => stderr.subarray(Math.max(0, stderr.length - STDERR_TAIL_BYTES)).toString('utf8');
    const finish = (err: FfmpegError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve({ stdout: Buffer.concat(stdoutChunks).toString('utf8') });
    };

    child.once('error', (cause) => {
      // 'error' without a pid means the process never started (ENOENT, EACCES); a later error
      // (a failed kill) is followed by 'close' and handled there.
      if (child.pid === undefined) finish(new FfmpegError('spawn', { stderrTail: '', cause, binary }));
    });
    child.once('close', (code, signal) => {
      if (stoppedFor) finish(new FfmpegError(stoppedFor, { stderrTail: tail(), binary }));
      else if (stdoutBytes > MAX_STDOUT_BYTES)
        finish(new FfmpegError('failed', { exitCode: code ?? undefined, stderrTail: 'stdout too large', binary }));
      else if (code === 0) finish(null);
      else
        finish(
          new FfmpegError('failed', {
            exitCode: code ?? undefined,
            exitSignal: signal ?? undefined,
            stderrTail: tail(),
            binary,
          }),
        );
    });
  });
}

/** Parses ffmpeg's `-progress` output (key=value lines) and reports each `out_time_us`. */
export function progressReader(onProgress: (outTimeUs: number) => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > 4096) pending = '';
    for (const line of lines) {
      const [key, value] = line.trim().split('=');
      // out_time_ms is also in microseconds (an old ffmpeg misnomer); either will do.
      if (key !== 'out_time_us' && key !== 'out_time_ms') continue;
      const us = Number(value);
      if (Number.isFinite(us) && us >= 0) onProgress(us);
    }
  };
}
