/**
 * Memory benchmark: each service's resident set size (VmRSS of /proc/<pid>/status) idle and its
 * peak under the gateway load (GET /api/v1/jobs/:id at BENCH_CONNECTIONS with autocannon, which
 * also keeps jobs busy answering the RPC), against a bare express + pg server idle and under the
 * same load on its own row-by-primary-key route. Prints figures; no pass/fail.
 *
 * The services run in their production form (services/<name>/dist, built first, plain node, as the
 * images run them) and the baseline is bundled the same way; `--source` measures both from source
 * under tsx instead (as npm start runs them), for comparison.
 *
 *   npm run bench -- memory [--source]      (node --import tsx bench/memory/run.ts)
 *
 * Knobs: BENCH_CONNECTIONS (50), BENCH_DURATION_SEC (10), BENCH_WARMUP_SEC (2), BENCH_IDLE_SETTLE_SEC (5).
 */
import { SERVICES } from '@mf/fleet';
import { buildService, SERVICE_NAMES } from '../../scripts/build/services';
import { startBareServer } from '../lib/bare';
import { DURATION_SEC, envNumber, machineLine, sleep, WARMUP_SEC } from '../lib/env';
import { runBench, startBenchFleet, submitImageJob } from '../lib/fleet';
import { describeStatuses, runLoad, type LoadSpec } from '../lib/load';
import { idleRss, sampleRss } from '../lib/rss';
import { num, ratio } from '../lib/stats';
import { printTable } from '../lib/table';

const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 50);
const SETTLE_SEC = envNumber('BENCH_IDLE_SETTLE_SEC', 5);

/** Runs the load while sampling the processes' RSS; resolves each one's peak (MiB). */
async function peakUnderLoad(
  pids: Record<string, number>,
  spec: LoadSpec,
): Promise<{ peak: Record<string, number>; summary: string }> {
  const sampler = sampleRss(pids);
  const result = await runLoad(spec);
  return { peak: sampler.stop(), summary: `${num(result.rps)} req/s, ${describeStatuses(result)}` };
}

async function main(): Promise<void> {
  const compiled = !process.argv.includes('--source');
  console.log(
    `memory bench (${compiled ? 'production build' : 'from source under tsx'}): idle after ${SETTLE_SEC} s, then peak under ${CONNECTIONS} connections for ${WARMUP_SEC} + ${DURATION_SEC} s; ${machineLine()}`,
  );
  if (compiled) {
    const t = Date.now();
    for (const name of SERVICE_NAMES) await buildService(name);
    console.log(`  built the six services in ${((Date.now() - t) / 1000).toFixed(1)} s (scripts/build)`);
  }
  const fleet = await startBenchFleet({}, compiled ? 'compiled' : 'source');
  let failed = true;
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const user = await fleet.userWithKey('all');
    const jobId = await submitImageJob(fleet, user.key);
    const bare = await startBareServer(fleet.databaseUrl, 'jobs.jobs', compiled);
    try {
      // One request each, so both have opened their database connections before "idle" is read.
      await fetch(`${bare.url}/row/${jobId}`).then((r) => r.arrayBuffer());
      await sleep(SETTLE_SEC * 1000);
      const servicePids = Object.fromEntries(SERVICES.map((s) => [s.name, fleet.procs[s.name].child.pid!]));
      const idle: Record<string, number> = {};
      for (const [name, pid] of Object.entries({ ...servicePids, bare: bare.pid })) idle[name] = await idleRss(pid);

      const ours = await peakUnderLoad(servicePids, {
        url: `${fleet.baseUrl}/api/v1/jobs/${jobId}`,
        headers: { authorization: `Bearer ${user.key}` },
        connections: CONNECTIONS,
      });
      const base = await peakUnderLoad(
        { bare: bare.pid },
        { url: `${bare.url}/row/${jobId}`, connections: CONNECTIONS },
      );

      const fleetIdle = SERVICES.reduce((s, x) => s + idle[x.name], 0);
      const fleetPeak = SERVICES.reduce((s, x) => s + ours.peak[x.name], 0);
      console.log('');
      printTable(
        ['RSS MiB', 'idle', 'under load (peak)'],
        [
          ...SERVICES.map((s) => [s.name, num(idle[s.name]), num(ours.peak[s.name])]),
          ['all six services', num(fleetIdle), num(fleetPeak)],
          [`bare express + pg (${compiled ? 'bundled' : 'tsx'})`, num(idle.bare), num(base.peak.bare)],
        ],
      );
      console.log(`  load on the gateway: GET /api/v1/jobs/:id, ${ours.summary}`);
      console.log(`  load on the bare server: GET /row/:id, ${base.summary}`);
      console.log('');
      printTable(
        ['ratio ours / baseline', 'idle', 'under load'],
        [
          ['gateway / bare', ratio(idle.gateway, idle.bare), ratio(ours.peak.gateway, base.peak.bare)],
          ['jobs / bare', ratio(idle.jobs, idle.bare), ratio(ours.peak.jobs, base.peak.bare)],
          ['all six services / bare', ratio(fleetIdle, idle.bare), ratio(fleetPeak, base.peak.bare)],
        ],
      );
    } finally {
      await bare.stop();
    }
    failed = false;
  } finally {
    await fleet.shutdown({ failed });
  }
}

runBench(main);
