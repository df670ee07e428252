import { performance } from 'node:perf_hooks';
import { envNumber } from '../lib/env';
import { startBenchFleet } from '../lib/fleet';
import { until } from '../lib/held-jobs';
import { num, summarize, type Summary } from '../lib/stats';
import { openTenants } from '../lib/tenants';
import {
  benchPool,
  completedAt,
  epochOf,
  firedAt,
  randomInstants,
  say,
  sayLoad,
  scaled,
  SCALE,
  spread,
  submitMany,
  waitAllEnded,
} from './common';

/** The jobs service's status-call limit for the bench upstream (STATUS_CALLS_PER_SECOND). */
export const POLL_RATE = envNumber('BENCH_SCALE_POLL_RATE', 200);
/** The default POLL_INTERVAL_MS of the jobs service. */
const POLL_INTERVAL_MS = 2000;

export interface PollOnlyResult {
  latency: Summary;
  /** Most status calls the upstream got in one second (sliding), and the mean rate while completing. */
  busiestSecond: number;
  meanPerSecond: number;
}

/** The most instants (ms, ascending) in one window of `windowMs`. */
function busiestWindow(sorted: readonly number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j] - sorted[i] >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/**
 * 2) Polling only, on a fleet of its own: an upstream that never calls back, the default poll
 * interval, a limit of POLL_RATE status calls a second; JOBS jobs held, then completed at random over
 * SPAN: completion -> job completed, and the status calls the upstream got per second.
 */
export async function pollOnly(): Promise<PollOnlyResult> {
  const jobs = scaled(1000);
  const spanMs = Math.max(10_000, 30_000 * Math.min(1, SCALE));
  console.log(
    `\n2) polling only: ${jobs} jobs at an upstream without callbacks, POLL_INTERVAL_MS=${POLL_INTERVAL_MS}, STATUS_CALLS_PER_SECOND=${POLL_RATE}; completed at random over ${spanMs / 1000} s`,
  );
  const fleet = await startBenchFleet(
    { POLL_INTERVAL_MS: String(POLL_INTERVAL_MS), STATUS_CALLS_PER_SECOND: String(POLL_RATE) },
    'source',
    { callbacks: false },
  );
  let failed = true;
  const tenants = await openTenants(fleet);
  const pool = benchPool(fleet);
  try {
    const user = await tenants.make();
    const submitted = await submitMany(fleet, [user.key], jobs, 'scale poll only');
    say(`submitted ${jobs} in ${num(jobs / submitted.perSecond)} s`);
    await until('a poll of every job', () => submitted.ids.every((id) => fleet.provider.statusCalls(id) >= 1), 120_000);
    sayLoad('polling all of them');
    const upstreamAt = new Map<string, number>();
    const startedAt = performance.now();
    const order = [...submitted.ids].sort(() => Math.random() - 0.5);
    await firedAt(randomInstants(jobs, spanMs), (i) =>
      upstreamAt.set(order[i], epochOf(fleet.provider.complete(order[i]))),
    );
    const left = await waitAllEnded(pool, submitted.ids);
    const endedAt = performance.now();
    const done = await completedAt(pool, submitted.ids);
    const latency = summarize([...done].map(([id, t]) => t - upstreamAt.get(id)!));
    const calls = fleet.provider.statusCallTimes().filter((t) => t >= startedAt && t <= endedAt);
    const busiestSecond = busiestWindow(calls, 1000);
    const meanPerSecond = calls.length / ((endedAt - startedAt) / 1000);
    say(
      `upstream completion -> job completed: ${spread(latency)} (${done.size}/${jobs} completed${left ? `; ${left} still processing, none done for a minute` : ''})`,
    );
    say(
      `status calls at the upstream while completing: ${calls.length}, ${num(meanPerSecond)} per s on average, ${busiestSecond} in the busiest second (limit ${POLL_RATE})`,
    );
    // Calls bunched on the way show as a busiest second over the limit with 1.1 s windows near it.
    say(
      `busiest 0.9 s: ${busiestWindow(calls, 900)}, busiest 1.1 s: ${busiestWindow(calls, 1100)}, busiest 2 s: ${busiestWindow(calls, 2000)} calls`,
    );
    say(
      `bound: each job is polled every max(${POLL_INTERVAL_MS / 1000} s, jobs in flight / limit) = ${num(Math.max(POLL_INTERVAL_MS / 1000, jobs / POLL_RATE))} s`,
    );
    sayLoad('after');
    failed = false;
    return { latency, busiestSecond, meanPerSecond };
  } finally {
    await pool.end();
    await tenants.close();
    await fleet.shutdown({ failed });
  }
}
