/**
 * SSE benchmark (docs/events.md). 1) From the instant the provider reports a job complete (it
 * answers COMPLETED from then on and sends its completion callback) to the instant a client of
 * GET /api/v1/events/stream reads the job.completed event: callback -> gateway -> jobs (RPC) -> poll
 * -> result stored -> completed + outbox -> relay -> RabbitMQ -> the gateway's own queue -> hub ->
 * the stream. 2) 1,000 concurrent idle streams on one gateway: its RSS before and after, and the
 * cost per stream. Figures only; no pass/fail. The goal: p50 < 20 ms.
 *
 *   npm run bench -- sse         (node --import tsx bench/sse/run.ts)
 *
 * Knobs: BENCH_SSE_JOBS (100), BENCH_SSE_INTERVAL_MS (100), BENCH_SSE_WARMUP (10), BENCH_SSE_STREAMS (1000).
 */
import { performance } from 'node:perf_hooks';
import { envNumber, machineLine, sleep } from '../lib/env';
import { runBench, startBenchFleet, type BenchFleet } from '../lib/fleet';
import { holdJobs, until } from '../lib/held-jobs';
import { idleRss } from '../lib/rss';
import { num, summarize, type Summary } from '../lib/stats';
import { openStream } from '../lib/sse-client';
import { printTable } from '../lib/table';

const JOBS = envNumber('BENCH_SSE_JOBS', 100);
const INTERVAL_MS = envNumber('BENCH_SSE_INTERVAL_MS', 100);
const WARMUP = Math.floor(envNumber('BENCH_SSE_WARMUP', 10));
const STREAMS = Math.floor(envNumber('BENCH_SSE_STREAMS', 1000));

async function latency(fleet: BenchFleet): Promise<Summary> {
  const user = await fleet.userWithKey('all');
  const arrivals = new Map<string, number>();
  const stream = await openStream(fleet.baseUrl, user.key, (type, data) => {
    if (type === 'job.completed') arrivals.set((JSON.parse(data) as { job_id: string }).job_id, performance.now());
  });
  try {
    const ids = await holdJobs(fleet, user.key, WARMUP + JOBS, 'bench sse');
    const completedAt = new Map<string, number>();
    const start = performance.now();
    for (const [i, id] of ids.entries()) {
      const wait = start + i * INTERVAL_MS - performance.now();
      if (wait > 0) await sleep(wait);
      completedAt.set(id, fleet.provider.complete(id));
    }
    await until('every job.completed on the stream', () => arrivals.size >= ids.length, 120_000);
    return summarize(ids.slice(WARMUP).map((id) => arrivals.get(id)! - completedAt.get(id)!));
  } finally {
    stream.close();
  }
}

async function idleStreams(fleet: BenchFleet): Promise<{ before: number; after: number }> {
  const user = await fleet.userWithKey('all');
  const pid = fleet.procs.gateway.child.pid!;
  const before = await idleRss(pid);
  const open: Array<{ close: () => void }> = [];
  try {
    for (let i = 0; i < STREAMS; i += 50)
      open.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, STREAMS - i) }, () => openStream(fleet.baseUrl, user.key, () => undefined)),
        )),
      );
    await sleep(2000);
    return { before, after: await idleRss(pid) };
  } finally {
    for (const s of open) s.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `sse bench: ${JOBS} jobs (after ${WARMUP} warm-up), one completion every ${INTERVAL_MS} ms; then ${STREAMS} idle streams; ${machineLine()}`,
  );
  // One key holds every idle stream here; the per-key limit (10 by default) is raised for that.
  const fleet = await startBenchFleet({ STREAMS_PER_KEY: String(STREAMS + 10) });
  let failed = true;
  try {
    for (const note of [...fleet.notes, `STREAMS_PER_KEY=${STREAMS + 10} (one key opens every idle stream)`])
      console.log(`  fleet: ${note}`);
    const mine = await latency(fleet);
    const rss = await idleStreams(fleet);
    console.log('');
    printTable(
      ['', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'],
      [
        [
          'provider completion -> SSE event read',
          String(mine.count),
          num(mine.p50),
          num(mine.p99),
          num(mine.mean),
          num(mine.max),
        ],
      ],
    );
    console.log('');
    printTable(
      ['gateway RSS', 'MiB'],
      [
        ['idle, no stream', num(rss.before)],
        [`${STREAMS} idle streams open`, num(rss.after)],
        ['per stream (KiB)', num(((rss.after - rss.before) * 1024) / STREAMS)],
      ],
    );
    failed = false;
  } finally {
    await fleet.shutdown({ failed });
  }
}

runBench(main);
