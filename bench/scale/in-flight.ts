import type { BenchFleet } from '../lib/fleet';
import { backendPids, describeCpu, pidsByComm, postgresAuxPids, startCpuWindow } from '../lib/proc-cpu';
import { sampleRss } from '../lib/rss';
import { num, summarize, type Summary } from '../lib/stats';
import type { Tenants } from '../lib/tenants';
import {
  benchPool,
  completedAt,
  epochOf,
  firedAt,
  footprint,
  randomInstants,
  say,
  sayLoad,
  scaled,
  SCALE,
  spread,
  submitMany,
  waitAllEnded,
} from './common';

export interface InFlightResult {
  /** Jobs processing at once at the peak (counted in the database). */
  inFlight: number;
  /** Upstream completion -> the job completed in our database (what GET /jobs/:id answers). */
  latency: Summary;
}

/**
 * 1) Jobs in flight: JOBS jobs submitted and held at the upstream, then each completed at a random
 * moment over SPAN (the upstream calls back, as fal does): completion -> job completed.
 */
export async function jobsInFlight(fleet: BenchFleet, tenants: Tenants): Promise<InFlightResult> {
  const jobs = scaled(10_000);
  // The same completion rate at any scale (10,000 over 60 s), over 10 s at least.
  const spanMs = Math.max(10_000, 60_000 * Math.min(1, SCALE));
  console.log(`\n1) jobs in flight: ${jobs} jobs, completed at random over ${spanMs / 1000} s, with callbacks`);
  const pool = benchPool(fleet);
  const rss = sampleRss({ jobs: fleet.procs.jobs.child.pid!, gateway: fleet.procs.gateway.child.pid! });
  try {
    const user = await tenants.make();
    const submitted = await submitMany(fleet, [user.key], jobs, 'scale in flight');
    say(`submitted ${jobs} in ${num(jobs / submitted.perSecond)} s (${num(submitted.perSecond)} per s)`);
    const peak = await footprint(pool);
    const rssHeld = rss.stop();
    say(
      `at the peak: ${peak.processing} processing; Postgres ${peak.jobRows} job rows, ${peak.rows} rows in all, ${num(peak.mib)} MiB; RSS jobs ${num(rssHeld.jobs)}, gateway ${num(rssHeld.gateway)} MiB (peak while submitting)`,
    );
    sayLoad('before completing');

    const during = sampleRss({ jobs: fleet.procs.jobs.child.pid!, gateway: fleet.procs.gateway.child.pid! });
    // What a completion costs in CPU, per process: what sizing a deployment for a rate needs.
    const stopCpu = startCpuWindow({
      ...Object.fromEntries(Object.values(fleet.procs).map((p) => [p.name, [p.child.pid!]])),
      'rabbitmq (beam.smp)': pidsByComm('beam.smp'),
      'postgres backends of the bench db': await backendPids(fleet.databaseUrl),
      'postgres WAL writer, bgwriter, ...': postgresAuxPids(),
      'bench process (fake upstream)': [process.pid],
    });
    const completingFrom = Date.now();
    const upstreamAt = new Map<string, number>();
    const at = randomInstants(jobs, spanMs);
    const order = [...submitted.ids].sort(() => Math.random() - 0.5);
    await firedAt(at, (i) => upstreamAt.set(order[i], epochOf(fleet.provider.complete(order[i]))));
    const left = await waitAllEnded(pool, submitted.ids);
    const cpu = stopCpu();
    const completingSec = (Date.now() - completingFrom) / 1000;
    const rssDone = during.stop();
    const done = await completedAt(pool, submitted.ids);
    // A job never completed counts as infinitely late: its p99 is then no figure when 1% are lost.
    const latency = summarize([
      ...[...done].map(([id, t]) => t - upstreamAt.get(id)!),
      ...submitted.ids.filter((id) => !done.has(id)).map(() => Infinity),
    ]);
    const after = await footprint(pool);
    say(
      `upstream completion -> job completed: ${spread(latency)} (${done.size}/${jobs} completed${left ? `; ${left} still processing, none done for a minute` : ''})`,
    );
    say(
      `RSS while completing (peak): jobs ${num(rssDone.jobs)}, gateway ${num(rssDone.gateway)} MiB; Postgres after: ${after.rows} rows, ${num(after.mib)} MiB`,
    );
    say(`CPU per completion while completing (${num(completingSec)} s; ms of CPU per job, share of one core):`);
    for (const line of describeCpu(cpu, jobs, completingSec)) say(`  ${line}`);
    sayLoad('after');
    return { inFlight: peak.processing, latency };
  } finally {
    await pool.end();
  }
}
