/**
 * Submit benchmark: POST /api/v1/image/imagegen/generate -> 202 through the real fleet (gateway ->
 * jobs -> billing charge -> provider submit over HTTPS -> job row processing), with an instant
 * provider, against the submit's fair floor: a bare express POST doing the same work with nothing
 * in between (one transaction inserting the job row and debiting the balance, then one HTTPS POST
 * to the same fake provider on a keep-alive agent, then 202). Also, for reference, a bare POST that
 * only inserts one row. Same number of connections, autocannon. Prints figures; no pass/fail.
 *
 *   npm run bench -- submit           (node --import tsx bench/submit/run.ts)
 *
 * Knobs: BENCH_SUBMIT_CONNECTIONS (10), BENCH_DURATION_SEC (10), BENCH_WARMUP_SEC (2), BENCH_PG_POOL (10),
 * BENCH_CPU_PROF (a directory: the services' CPU profiles, summarised for the measured run).
 * `--compiled`: the services and the floor from their production build (plain node, as the images).
 */
import path from 'node:path';
import { Client } from 'pg';
import { startBareServer } from '../lib/bare';
import { profileClockUs, readProfiles, writeProfileWindow } from '../lib/cpu-profile';
import { DURATION_SEC, envNumber, machineLine, sleep, WARMUP_SEC } from '../lib/env';
import { BENCH_CREDITS, runBench, startBenchFleet } from '../lib/fleet';
import { histogramMeans, meansBetween } from '../lib/metric-means';
import { describeStatuses, runLoad, type LoadResult } from '../lib/load';
import { num, ratio } from '../lib/stats';
import {
  backendPids,
  commitsSoFar,
  describeCpu,
  pidsByComm,
  postgresAuxPids,
  startCpuWindow,
  type PidGroups,
} from '../lib/proc-cpu';
import { printTable } from '../lib/table';
import { buildService, SERVICE_NAMES } from '../../scripts/build/services';

const CONNECTIONS = envNumber('BENCH_SUBMIT_CONNECTIONS', 10);

/**
 * The baselines' tables: bench.submits (an id, a JSON body and a timestamp, the least a job row
 * holds) and copies of jobs.jobs and billing.balances (columns, defaults, checks and indexes) with
 * the bench user's balance.
 */
async function createBaselineTables(databaseUrl: string, userId: number): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `CREATE SCHEMA IF NOT EXISTS bench;
       CREATE TABLE IF NOT EXISTS bench.submits (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
       CREATE TABLE bench.jobs (LIKE jobs.jobs INCLUDING ALL);
       CREATE TABLE bench.balances (LIKE billing.balances INCLUDING ALL)`,
    );
    await db.query('INSERT INTO bench.balances (user_id, credits) VALUES ($1, $2)', [userId, BENCH_CREDITS]);
  } finally {
    await db.end();
  }
}

/** CPU of every process taking part, read over one measured window: `own` plus the broker, Postgres and this process. */
async function cpuWindow(databaseUrl: string, own: PidGroups) {
  return startCpuWindow({
    ...own,
    'rabbitmq (beam.smp)': pidsByComm('beam.smp'),
    'postgres backends of the bench db': await backendPids(databaseUrl),
    'postgres WAL writer, bgwriter, ...': postgresAuxPids(),
    'bench process (load, fake provider)': [process.pid],
  });
}

async function main(): Promise<void> {
  const compiled = process.argv.includes('--compiled');
  console.log(
    `submit bench (${compiled ? 'production build' : 'from source under tsx'}): ${CONNECTIONS} connections, ${DURATION_SEC} s per figure after ${WARMUP_SEC} s warm-up; ${machineLine()}`,
  );
  if (compiled) for (const name of SERVICE_NAMES) await buildService(name);
  const fleet = await startBenchFleet({}, compiled ? 'compiled' : 'source');
  const profDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  let failed = true;
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const user = await fleet.userWithKey('all');
    await createBaselineTables(fleet.databaseUrl, user.userId);
    const bare = await startBareServer(fleet.databaseUrl, 'jobs.jobs', compiled, {
      BARE_USER_ID: String(user.userId),
      BARE_PROVIDER_URL: fleet.provider.url,
      BARE_PROVIDER_KEY: fleet.provider.apiKey,
      NODE_EXTRA_CA_CERTS: fleet.provider.caPath,
    });
    const body = JSON.stringify({ prompt: 'a lighthouse at dusk, bench' });
    const headers = { 'content-type': 'application/json' };
    try {
      const scrape = () =>
        Promise.all(
          (['gateway', 'jobs', 'billing'] as const).map((name) =>
            histogramMeans(`http://127.0.0.1:${fleet.procs[name].port}`, [
              'bus_rpc_call_duration_seconds',
              'jobs_provider_submit_duration_seconds',
              'billing_batch_size',
            ]).then((m) => [name, m] as const),
          ),
        );
      const metricsBefore = await scrape();
      const before = fleet.provider.submitted();
      const connectionsBefore = fleet.provider.connections();
      let startUs = 0;
      let commitsBefore = 0;
      let stopCpu: ReturnType<typeof startCpuWindow> = () => ({ byGroup: {}, machineMs: 0 });
      const services: PidGroups = Object.fromEntries(Object.values(fleet.procs).map((p) => [p.name, [p.child.pid!]]));
      const ours = await runLoad(
        {
          url: `${fleet.baseUrl}/api/v1/image/imagegen/generate`,
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${user.key}` },
          body,
          connections: CONNECTIONS,
        },
        async () => {
          commitsBefore = await commitsSoFar(fleet.databaseUrl);
          stopCpu = await cpuWindow(fleet.databaseUrl, services);
          startUs = profileClockUs();
        },
      );
      const oursCpu = stopCpu();
      // The statistics reach pg_stat_database about once a second.
      await sleep(1500);
      const commits = (await commitsSoFar(fleet.databaseUrl)) - commitsBefore;
      if (profDir) writeProfileWindow(profDir, { startUs, endUs: profileClockUs() });
      const submitted = fleet.provider.submitted() - before;
      const connections = fleet.provider.connections() - connectionsBefore;
      const metricsAfter = await scrape();
      const floor = await runLoad(
        { url: `${bare.url}/submit-job`, method: 'POST', headers, body, connections: CONNECTIONS },
        async () => {
          stopCpu = await cpuWindow(fleet.databaseUrl, {
            'bare server': [bare.pid],
            'the fleet (idle)': Object.values(services).flat(),
          });
        },
      );
      const floorCpu = stopCpu();
      const insert = await runLoad({
        url: `${bare.url}/submit`,
        method: 'POST',
        headers,
        body,
        connections: CONNECTIONS,
      });

      console.log('');
      const row = (label: string, r: LoadResult) => [label, num(r.rps), num(r.p50), num(r.p99), describeStatuses(r)];
      printTable(
        ['', 'submits/s', 'p50 ms', 'p99 ms', 'responses'],
        [
          row('POST /api/v1/image/imagegen/generate', ours),
          row('fair floor: bare tx + provider POST', floor),
          row('bare express POST, one INSERT', insert),
        ],
      );
      console.log(
        `  (the provider received ${submitted} submits from the fleet over ${connections} TLS connections, warm-up included; each one charged 50 credits)`,
      );
      console.log("  where the time went (means over warm-up and run, from the services' metrics):");
      for (const [i, [name, after]] of metricsAfter.entries())
        for (const line of meansBetween(metricsBefore[i][1], after)) console.log(`    ${name}: ${line}`);
      console.log(`  CPU per submit over the measured ${DURATION_SEC} s (ms of CPU per 202, and % of one core):`);
      console.log(
        `    ours: ${(commits / Math.max(1, ours.total)).toFixed(2)} Postgres commits per submit (the floor: 1), over all services`,
      );
      for (const line of describeCpu(oursCpu, ours.total, DURATION_SEC)) console.log(`    ours:  ${line}`);
      for (const line of describeCpu(floorCpu, floor.total, DURATION_SEC)) console.log(`    floor: ${line}`);
      console.log('');
      printTable(
        ['ratio ours / baseline', 'submits/s', 'p50', 'p99'],
        [
          ['submit / fair floor', ratio(ours.rps, floor.rps), ratio(ours.p50, floor.p50), ratio(ours.p99, floor.p99)],
          [
            'submit / one INSERT',
            ratio(ours.rps, insert.rps),
            ratio(ours.p50, insert.p50),
            ratio(ours.p99, insert.p99),
          ],
        ],
      );
    } finally {
      await bare.stop();
    }
    failed = false;
  } finally {
    await fleet.shutdown({ failed });
  }
  if (profDir) {
    console.log(
      `\nCPU profiles of the measured run (${profDir}; node --import tsx bench/lib/cpu-profile.ts ${profDir} for more):`,
    );
    // Each service also writes its module loader thread's profile (tsx), idle: left out.
    for (const p of readProfiles(profDir).filter((x) => x.busyMs >= 1)) {
      const top = p.functions
        .slice(0, 6)
        .map(([k, v]) => `${((100 * v) / p.busyMs).toFixed(1)}% ${k}`)
        .join('\n      ');
      console.log(`  ${p.name}: busy ${((100 * p.busyMs) / (p.totalMs || 1)).toFixed(0)}%\n      ${top}`);
    }
  }
}

runBench(main);
