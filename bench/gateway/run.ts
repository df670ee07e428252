/**
 * Gateway benchmark: GET /api/v1/jobs/:id and GET /api/v1/models through the real fleet, against a
 * bare express server reading one row by primary key from Postgres (the job's own row), all at the
 * same number of connections with autocannon. Prints figures; no pass/fail.
 *
 *   npm run bench -- gateway          (node --import tsx bench/gateway/run.ts)
 *
 * Knobs: BENCH_CONNECTIONS (50), BENCH_DURATION_SEC (10), BENCH_WARMUP_SEC (2), BENCH_PG_POOL (10).
 */
import { startBareServer } from '../lib/bare';
import { DURATION_SEC, envNumber, machineLine, WARMUP_SEC } from '../lib/env';
import { runBench, startBenchFleet, submitImageJob } from '../lib/fleet';
import { describeStatuses, runLoad, type LoadResult } from '../lib/load';
import { num, ratio } from '../lib/stats';
import { printTable } from '../lib/table';

const CONNECTIONS = envNumber('BENCH_CONNECTIONS', 50);

async function main(): Promise<void> {
  console.log(
    `gateway bench: ${CONNECTIONS} connections, ${DURATION_SEC} s per figure after ${WARMUP_SEC} s warm-up; ${machineLine()}`,
  );
  const fleet = await startBenchFleet();
  let failed = true;
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const user = await fleet.userWithKey('all');
    const jobId = await submitImageJob(fleet, user.key);
    const auth = { authorization: `Bearer ${user.key}` };
    const bare = await startBareServer(fleet.databaseUrl, 'jobs.jobs');
    try {
      const job = await runLoad({
        url: `${fleet.baseUrl}/api/v1/jobs/${jobId}`,
        headers: auth,
        connections: CONNECTIONS,
      });
      const models = await runLoad({ url: `${fleet.baseUrl}/api/v1/models`, headers: auth, connections: CONNECTIONS });
      const base = await runLoad({ url: `${bare.url}/row/${jobId}`, connections: CONNECTIONS });

      console.log('');
      const row = (label: string, r: LoadResult) => [label, num(r.rps), num(r.p50), num(r.p99), describeStatuses(r)];
      printTable(
        ['', 'req/s', 'p50 ms', 'p99 ms', 'responses'],
        [
          row('GET /api/v1/jobs/:id (gateway -> jobs)', job),
          row('GET /api/v1/models (gateway)', models),
          row('bare express + pg, row by primary key', base),
        ],
      );
      console.log('');
      printTable(
        ['ratio ours / baseline', 'req/s', 'p50', 'p99'],
        [
          ['GET /api/v1/jobs/:id', ratio(job.rps, base.rps), ratio(job.p50, base.p50), ratio(job.p99, base.p99)],
          ['GET /api/v1/models', ratio(models.rps, base.rps), ratio(models.p50, base.p50), ratio(models.p99, base.p99)],
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
