/**
 * Submit benchmark: POST /api/v1/image/imagegen/generate -> 202 through the real fleet (gateway ->
 * jobs -> billing charge -> provider submit over HTTPS -> job row processing), with an instant
 * provider, against a bare express POST that inserts one row in Postgres and answers 202. Same
 * number of connections, autocannon. Prints figures; no pass/fail.
 *
 *   npm run bench -- submit           (node --import tsx bench/submit/run.ts)
 *
 * Knobs: BENCH_SUBMIT_CONNECTIONS (10), BENCH_DURATION_SEC (10), BENCH_WARMUP_SEC (2), BENCH_PG_POOL (10).
 */
import { Client } from 'pg';
import { startBareServer } from '../lib/bare';
import { DURATION_SEC, envNumber, machineLine, WARMUP_SEC } from '../lib/env';
import { runBench, startBenchFleet } from '../lib/fleet';
import { describeStatuses, runLoad, type LoadResult } from '../lib/load';
import { num, ratio } from '../lib/stats';
import { printTable } from '../lib/table';

const CONNECTIONS = envNumber('BENCH_SUBMIT_CONNECTIONS', 10);

/** The baseline's table: an id, a JSON body and a timestamp, like the least a job row holds. */
async function createSubmitsTable(databaseUrl: string): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      'CREATE SCHEMA IF NOT EXISTS bench; CREATE TABLE IF NOT EXISTS bench.submits (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  console.log(
    `submit bench: ${CONNECTIONS} connections, ${DURATION_SEC} s per figure after ${WARMUP_SEC} s warm-up; ${machineLine()}`,
  );
  const fleet = await startBenchFleet();
  let failed = true;
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const user = await fleet.userWithKey('all');
    await createSubmitsTable(fleet.databaseUrl);
    const bare = await startBareServer(fleet.databaseUrl);
    const body = JSON.stringify({ prompt: 'a lighthouse at dusk, bench' });
    const headers = { 'content-type': 'application/json' };
    try {
      const before = fleet.provider.submitted();
      const ours = await runLoad({
        url: `${fleet.baseUrl}/api/v1/image/imagegen/generate`,
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${user.key}` },
        body,
        connections: CONNECTIONS,
      });
      const submitted = fleet.provider.submitted() - before;
      const base = await runLoad({
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
        [row('POST /api/v1/image/imagegen/generate', ours), row('bare express POST, one INSERT', base)],
      );
      console.log(`  (the provider received ${submitted} submits, warm-up included; each one charged 50 credits)`);
      console.log('');
      printTable(
        ['ratio ours / baseline', 'submits/s', 'p50', 'p99'],
        [['submit -> 202', ratio(ours.rps, base.rps), ratio(ours.p50, base.p50), ratio(ours.p99, base.p99)]],
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
