import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Knobs read from the environment (see bench/README.md). */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

export function envList(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const list = raw.split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${name} must be a comma-separated list of positive integers, got ${JSON.stringify(raw)}`);
  return list;
}

/** Seconds of measured load per figure. */
export const DURATION_SEC = envNumber('BENCH_DURATION_SEC', 10);
/** Seconds of unmeasured load before each figure (connections open, code paths compiled and warm). */
export const WARMUP_SEC = envNumber('BENCH_WARMUP_SEC', 2);

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
  }
}

/** One line describing the machine, printed at the top of every bench. */
export function machineLine(): string {
  return `${os.cpus().length} CPU cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, node ${process.version}, load average ${loadAverage()}`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
