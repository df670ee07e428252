/**
 * Scale benchmark: how the fleet holds when its work grows (bench/README.md). Five scenarios on the
 * bench fleet with the fake upstream: 1) 10,000 jobs in flight completed by callback over 60 s;
 * 2) 1,000 jobs at an upstream without callbacks, found by polling under the status-call limit (a
 * fleet of its own); 3) 1,000 live streams while 100 jobs a second complete; 4) 1,000 completions
 * over 100 webhook endpoints answering after 1 s; 5) one endpoint that never answers, 500 owed to
 * it, beside another tenant's 100 jobs at 10/s. Each prints its detail; the bench ends with the
 * table of figures and goals. Figures only; no pass/fail.
 *
 *   npm run bench -- scale             (node --import tsx bench/scale/run.ts)
 *
 * Knobs: SCALE_FACTOR (1; 0.1 runs in a minute or two), BENCH_SCALE_POLL_RATE (200), BENCH_SCALE_ONLY
 * (1,2,3,4,5: the scenarios to run).
 */
import type { Pool } from 'pg';
import { envList, envNumber, machineLine } from '../lib/env';
import { runBench, startBenchFleet, type BenchFleet } from '../lib/fleet';
import { num, type Summary } from '../lib/stats';
import { openTenants, type Tenants } from '../lib/tenants';
import { besideHangingEndpoint, throughputOverEndpoints } from '../webhooks/scenarios';
import { benchPool, SCALE, scaled, waitOutboxDrained } from './common';
import { jobsInFlight } from './in-flight';
import { pollOnly } from './poll-only';
import { fleetWebhookTarget } from './receivers';
import { liveStreams } from './streams';

const TIMEOUT_MS = envNumber('BENCH_WEBHOOK_TIMEOUT_SEC', 120) * 1000;

interface Figure {
  label: string;
  value: number;
  text: string;
  goal: string;
  met: boolean;
  /** How far from the goal, for the closing note. */
  by: string;
}

const atLeast = (label: string, value: number, goal: number, digits = 0): Figure => ({
  label,
  value,
  text: Number.isFinite(value) ? value.toFixed(digits) : '-',
  goal: `>= ${goal}`,
  met: value >= goal,
  by: Number.isFinite(value) ? `${num(goal / value)}x short` : 'not measured',
});
const below = (label: string, value: number, goal: number, digits = 0): Figure => ({
  label,
  value,
  text: Number.isFinite(value) ? value.toFixed(digits) : '-',
  goal: `< ${goal}`,
  met: value < goal,
  by: Number.isFinite(value) ? `${num(value / goal)}x the goal` : 'more than 1% never arrived',
});

/** BENCH_SCALE_ONLY=1,3: only those scenarios (the others' figures print as "-"). */
const ONLY = new Set(envList('BENCH_SCALE_ONLY', [1, 2, 3, 4, 5]));
const NONE: Summary = { count: 0, mean: NaN, p50: NaN, p99: NaN, max: NaN };

async function onSharedFleet(fleet: BenchFleet, tenants: Tenants, pool: Pool) {
  const s1 = ONLY.has(1) ? await jobsInFlight(fleet, tenants) : { inFlight: NaN, latency: NONE };
  await waitOutboxDrained(pool);
  const s3 = ONLY.has(3) ? await liveStreams(fleet, tenants) : { streams: scaled(100) * 10, latency: NONE };
  await waitOutboxDrained(pool);

  const receivers = scaled(1000);
  const endpoints = scaled(100);
  let s4 = NaN;
  if (ONLY.has(4)) {
    console.log(`\n4) slow receivers: ${receivers} completions over ${endpoints} endpoints answering after 1 s`);
    const r = await throughputOverEndpoints(
      fleetWebhookTarget(fleet, tenants, pool, (i) => Math.ceil((receivers - i) / endpoints)),
      { jobs: receivers, endpoints, answerAfterMs: 1000, timeoutMs: TIMEOUT_MS },
    );
    console.log(
      `  delivered ${r.delivered}/${receivers} in ${num(r.seconds)} s (completed at the upstream in ${num(r.completeSeconds)} s); ${r.peakOpen.all} requests open at most, ${r.peakOpen.perPath} at one endpoint`,
    );
    s4 = r.seconds;
    await waitOutboxDrained(pool);
  }

  let s5 = NaN;
  if (ONLY.has(5)) {
    const owed = scaled(500);
    const neighbour = scaled(100, 20);
    console.log(
      `\n5) noisy neighbour: ${owed} owed to an endpoint that never answers; another tenant's ${neighbour} jobs at 10/s`,
    );
    const r = await besideHangingEndpoint(
      fleetWebhookTarget(fleet, tenants, pool, (i) => (i === 0 ? owed : neighbour)),
      { owed, jobs: neighbour, perSecond: 10, timeoutMs: TIMEOUT_MS },
    );
    console.log(
      `  completion -> delivery: p50 ${num(r.latency.p50)}, p99 ${num(r.latency.p99)}, max ${num(r.latency.max)} ms (${r.delivered}/${neighbour}); ${r.hangingPeakOpen} open at the hanging endpoint`,
    );
    s5 = r.latency.p99;
  }
  return { s1, s3, s4, s5, receivers };
}

async function main(): Promise<void> {
  console.log(`scale bench: SCALE_FACTOR=${SCALE}; scenarios ${[...ONLY].join(', ')}; ${machineLine()}`);
  let shared = {
    s1: { inFlight: NaN, latency: NONE },
    s3: { streams: scaled(100) * 10, latency: NONE },
    s4: NaN,
    s5: NaN,
    receivers: scaled(1000),
  };
  if ([1, 3, 4, 5].some((n) => ONLY.has(n))) {
    const fleet = await startBenchFleet();
    let failed = true;
    try {
      for (const note of fleet.notes) console.log(`  fleet: ${note}`);
      const tenants = await openTenants(fleet);
      const pool = benchPool(fleet);
      try {
        shared = await onSharedFleet(fleet, tenants, pool);
      } finally {
        await pool.end();
        await tenants.close();
      }
      failed = false;
    } finally {
      await fleet.shutdown({ failed });
    }
  }
  const s2 = ONLY.has(2) ? (await pollOnly()).latency : NONE;

  const figures = [
    atLeast('jobs in flight at once', shared.s1.inFlight, 10_000),
    below('callback completion -> job completed p99 ms', shared.s1.latency.p99, 1000),
    below(`poll-only (${scaled(1000)} in flight) completion -> job completed p99 s`, s2.p99 / 1000, 10, 1),
    below(`${shared.s3.streams} streams: event p99 ms`, shared.s3.latency.p99, 250),
    below(`slow receivers: ${shared.receivers} deliveries done in s`, shared.s4, 15, 1),
    below('noisy neighbour: other tenant delivery p99 ms', shared.s5, 500),
  ];
  console.log('');
  console.log(`${'scale figure'.padEnd(62)}${'value'.padEnd(8)}goal`);
  for (const f of figures) console.log(`${f.label.padEnd(62)}${f.text.padEnd(8)}${f.goal}`);
  const scenarioOf = [1, 1, 2, 3, 4, 5];
  const missed = figures.filter((f, i) => !f.met && ONLY.has(scenarioOf[i]));
  console.log('');
  if (SCALE !== 1) console.log(`SCALE_FACTOR=${SCALE}: counts scaled; the goals are those of the full size.`);
  console.log(
    missed.length
      ? `goals missed: ${missed.map((f) => `${f.label} ${f.text} (${f.goal}; ${f.by})`).join('; ')}`
      : 'every goal measured was met',
  );
}

runBench(main);
