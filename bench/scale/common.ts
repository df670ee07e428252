import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { envNumber, loadAverage, sleep } from '../lib/env';
import { submitImageJob, type BenchFleet } from '../lib/fleet';
import { num, type Summary } from '../lib/stats';

/** SCALE_FACTOR (default 1) multiplies every count of the scale bench: 0.1 is a run of a minute or two. */
export const SCALE = envNumber('SCALE_FACTOR', 1);

/** `n` at the bench's scale (at least `min`). */
export const scaled = (n: number, min = 1): number => Math.max(min, Math.round(n * SCALE));

/** A performance.now() instant as epoch milliseconds (the clock Postgres and the services write). */
export const epochOf = (perfNow: number): number => performance.timeOrigin + perfNow;

/** "p50 12.3, p99 45.6, max 78.9 ms" */
export const spread = (s: Summary, unit = 'ms'): string =>
  `n ${s.count}, p50 ${num(s.p50)}, p99 ${num(s.p99)}, max ${num(s.max)} ${unit}`;

export const say = (line: string): void => console.log(`  ${line}`);
export const sayLoad = (what: string): void => say(`${what}: load average ${loadAverage()}`);

/**
 * Submits `n` image jobs through the gateway, `concurrency` at a time, the i-th with keys[i % keys.length];
 * resolves their ids in submit order and the submits per second.
 */
export async function submitMany(
  fleet: BenchFleet,
  keys: string[],
  n: number,
  prompt: string,
  concurrency = 16,
): Promise<{ ids: string[]; keyIndex: number[]; perSecond: number }> {
  const ids: string[] = new Array<string>(n);
  const keyIndex: number[] = new Array<number>(n);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        keyIndex[i] = i % keys.length;
        ids[i] = await submitImageJob(fleet, keys[keyIndex[i]], prompt);
      }
    }),
  );
  return { ids, keyIndex, perSecond: n / ((performance.now() - start) / 1000) };
}

/** A pool on the fleet's database for the bench's own reads (job rows, sizes). */
export const benchPool = (fleet: BenchFleet): Pool => new Pool({ connectionString: fleet.databaseUrl, max: 2 });

/**
 * Waits until every job of `ids` has left processing, or none has for `stallMs`; resolves how many
 * are left (a callback lost on the way leaves its job to the poller, which a bench fleet runs rarely).
 */
export async function waitAllEnded(pool: Pool, ids: string[], stallMs = 60_000): Promise<number> {
  let last = Infinity;
  let since = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM jobs.jobs WHERE id = ANY($1) AND status IN ('submitting', 'processing')`,
      [ids],
    );
    const left = Number(rows[0].n);
    if (left === 0) return 0;
    if (left < last) [last, since] = [left, Date.now()];
    else if (Date.now() - since > stallMs) return left;
    await sleep(250);
  }
}

/** Each completed job's completed_at (epoch ms, the jobs service's clock when it completed the job). */
export async function completedAt(pool: Pool, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; at: string }>(
    `SELECT id, (extract(epoch FROM completed_at) * 1000)::float8 AS at FROM jobs.jobs WHERE id = ANY($1) AND status = 'completed'`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.at)]));
}

/** The jobs in processing now, and the database's rows and size. */
export async function footprint(
  pool: Pool,
): Promise<{ processing: number; rows: number; jobRows: number; mib: number }> {
  const [processing, rows, size] = await Promise.all([
    pool.query<{ n: string }>(`SELECT count(*) AS n FROM jobs.jobs WHERE status = 'processing'`),
    pool.query<{ rows: string; jobs: string }>(
      `SELECT sum(n_live_tup) AS rows, sum(n_live_tup) FILTER (WHERE schemaname = 'jobs' AND relname = 'jobs') AS jobs FROM pg_stat_user_tables`,
    ),
    pool.query<{ bytes: string }>(`SELECT pg_database_size(current_database()) AS bytes`),
  ]);
  return {
    processing: Number(processing.rows[0].n),
    rows: Number(rows.rows[0].rows),
    jobRows: Number(rows.rows[0].jobs),
    mib: Number(size.rows[0].bytes) / 1024 ** 2,
  };
}

/** Calls `fire(i)` at start + at[i] (ms, ascending): an open loop, never waiting for what it fires. */
export async function firedAt(at: number[], fire: (i: number) => void): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < at.length; i++) {
    const wait = start + at[i] - performance.now();
    if (wait > 0) await sleep(wait);
    fire(i);
  }
}

/** `n` instants spread at random over `spanMs`, ascending. */
export const randomInstants = (n: number, spanMs: number): number[] =>
  Array.from({ length: n }, () => Math.random() * spanMs).sort((a, b) => a - b);

/** Waits until the jobs outbox has published everything (the previous scenario's events are out). */
export async function waitOutboxDrained(pool: Pool, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM jobs.outbox WHERE published_at IS NULL`,
    );
    if (Number(rows[0].n) === 0 || Date.now() > end) return;
    await sleep(250);
  }
}
