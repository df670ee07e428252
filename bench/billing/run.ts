/**
 * Billing benchmark: charges per second through billing's real interface (the billing.charge RPC
 * over RabbitMQ with @mf/bus, as the jobs service calls it: group-committed, one ledger row per
 * unique reference, balance check and debit) at 1, 10 and 50 concurrent callers, against two
 * floors through a pg Pool of the same size as billing's (10) at the same concurrency:
 * - a plain `UPDATE balances SET credits = credits - $2 WHERE user_id = $1` (no ledger at all);
 * - the same work done by a bare client, one charge at a time: a transaction with the checked
 *   debit and the ledger insert (unique reference), as billing did before group commit.
 * All callers charge one user, as a busy customer does. Prints figures; no pass/fail.
 *
 *   npm run bench -- billing          (node --import tsx bench/billing/run.ts)
 *
 * Knobs: BENCH_BILLING_CONCURRENCY (1,10,50), BENCH_DURATION_SEC (10), BENCH_WARMUP_SEC (2), BENCH_PG_POOL (10).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { Bus } from '../../libs/bus/src';
import { billingRpc } from '../../libs/contracts/src';
import { createLogger } from '../../libs/logger/src';
import { DURATION_SEC, envList, envNumber, machineLine, WARMUP_SEC } from '../lib/env';
import { BENCH_CREDITS, runBench, startBenchFleet } from '../lib/fleet';
import { num, ratio, summarize, type Summary } from '../lib/stats';
import { printTable } from '../lib/table';

const LEVELS = envList('BENCH_BILLING_CONCURRENCY', [1, 10, 50]);
const POOL = envNumber('BENCH_PG_POOL', 10);

interface LoopResult {
  perSec: number;
  latency: Summary;
  errors: number;
  firstError?: string;
}

/** `concurrency` callers each calling `call` back to back for `seconds`. */
async function closedLoop(concurrency: number, seconds: number, call: () => Promise<unknown>): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await call();
          latencies.push(performance.now() - t);
        } catch (err) {
          errors += 1;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  return {
    perSec: latencies.length / ((performance.now() - start) / 1000),
    latency: summarize(latencies),
    errors,
    firstError,
  };
}

async function measure(concurrency: number, call: () => Promise<unknown>): Promise<LoopResult> {
  if (WARMUP_SEC > 0) await closedLoop(concurrency, WARMUP_SEC, call);
  return closedLoop(concurrency, DURATION_SEC, call);
}

async function main(): Promise<void> {
  console.log(
    `billing bench: ${LEVELS.join(', ')} concurrent callers, ${DURATION_SEC} s per figure after ${WARMUP_SEC} s warm-up; ${machineLine()}`,
  );
  const fleet = await startBenchFleet();
  let failed = true;
  const bus = new Bus({
    url: fleet.amqpUrl,
    service: 'bench',
    logger: createLogger('bench', 'silent'),
    rpcTimeoutMs: 30_000,
  });
  const pool = new Pool({ connectionString: fleet.databaseUrl, max: POOL });
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const user = await fleet.userWithKey('all');
    await bus.start();
    await pool.query(
      'CREATE SCHEMA IF NOT EXISTS bench; CREATE TABLE bench.balances (LIKE billing.balances INCLUDING ALL); CREATE TABLE bench.ledger (LIKE billing.ledger INCLUDING ALL)',
    );
    await pool.query('INSERT INTO bench.balances (user_id, credits) VALUES ($1, $2)', [user.userId, BENCH_CREDITS]);

    const run = randomBytes(4).toString('hex');
    let seq = 0;
    const charge = () =>
      bus.rpc(billingRpc, 'charge', {
        user_id: user.userId,
        reference: `bench:${run}-${seq++}`,
        amount: 1,
        description: 'bench',
      });
    const update = () =>
      pool.query(
        'UPDATE bench.balances SET credits = credits - $2, updated_at = now() WHERE user_id = $1 AND credits >= $2 RETURNING credits',
        [user.userId, 1],
      );
    const bareCharge = async () => {
      const conn = await pool.connect();
      try {
        await conn.query('BEGIN');
        const { rows: debited } = await conn.query<{ credits: string }>(
          'UPDATE bench.balances SET credits = credits - $2, updated_at = now() WHERE user_id = $1 AND credits >= $2 RETURNING credits',
          [user.userId, 1],
        );
        if (!debited.length) throw new Error('insufficient credits');
        await conn.query(
          "INSERT INTO bench.ledger (user_id, kind, reference, amount, balance_after, description) VALUES ($1, 'charge', $2, $3, $4, 'bench')",
          [user.userId, `bare:${run}-${seq++}`, 1, debited[0].credits],
        );
        await conn.query('COMMIT');
      } catch (err) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    };

    const rows: string[][] = [];
    const ratios: string[][] = [];
    for (const c of LEVELS) {
      const ours = await measure(c, charge);
      const base = await measure(c, update);
      const bare = await measure(c, bareCharge);
      const errs = (r: LoopResult) => (r.errors ? ` (${r.errors} errors: ${r.firstError})` : '');
      rows.push([
        `${c}`,
        num(ours.perSec),
        num(ours.latency.p50),
        num(ours.latency.p99),
        num(base.perSec),
        num(bare.perSec),
        num(bare.latency.p50),
        num(bare.latency.p99),
      ]);
      ratios.push([
        `${c}`,
        ratio(ours.perSec, base.perSec),
        ratio(ours.perSec, bare.perSec),
        ratio(ours.latency.p50, bare.latency.p50),
        ratio(ours.latency.p99, bare.latency.p99),
      ]);
      if (ours.errors || base.errors || bare.errors)
        console.log(`  concurrency ${c}: charge RPC${errs(ours)}; plain UPDATE${errs(base)}; bare charge${errs(bare)}`);
    }
    const { rows: ledger } = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM billing.ledger WHERE kind = 'charge'",
    );
    console.log('');
    printTable(
      ['callers', 'charge RPC /s', 'p50 ms', 'p99 ms', 'plain UPDATE /s', 'bare charge /s', 'p50 ms', 'p99 ms'],
      rows,
    );
    console.log(`  (billing recorded ${ledger[0].n} charges, warm-ups included: one ledger row each)`);
    console.log('');
    printTable(
      ['ratio ours / floor', '/s vs UPDATE', '/s vs bare charge', 'p50 vs bare', 'p99 vs bare'],
      ratios.map(([c, ...r]) => [`${c} callers`, ...r]),
    );
    failed = false;
  } finally {
    await bus.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await fleet.shutdown({ failed });
  }
}

runBench(main);
