/**
 * Pipeline benchmark: from the instant the provider reports a job complete (it answers COMPLETED
 * from then on and sends its completion callback) to the instant the customer's webhook receiver
 * gets the signed job.completed. The path: callback -> gateway -> jobs (RPC) -> poll -> result
 * copied into storage -> completed + outbox -> relay -> RabbitMQ -> webhook-dispatcher -> signed
 * POST. Baseline, in the same run: the irreducible hops done minimally (publish a persistent message
 * to RabbitMQ, a separate process consumes it and POSTs it over HTTP to a receiver). Both paced the
 * same: one completion (or message) every BENCH_PIPELINE_INTERVAL_MS. Prints figures; no pass/fail.
 *
 *   npm run bench -- pipeline         (node --import tsx bench/pipeline/run.ts)
 *
 * Knobs: BENCH_PIPELINE_JOBS (200), BENCH_PIPELINE_INTERVAL_MS (100), BENCH_PIPELINE_WARMUP (10).
 */
import { performance } from 'node:perf_hooks';
import { startBare } from '../lib/bare';
import { amqp } from '../lib/deps';
import { envNumber, machineLine, sleep } from '../lib/env';
import { runBench, startBenchFleet, type BenchFleet } from '../lib/fleet';
import { holdJobs } from '../lib/held-jobs';
import { startTimedReceiver, type TimedReceiver } from '../lib/receiver';
import { num, ratio, summarize, type Summary } from '../lib/stats';
import { printTable } from '../lib/table';

const JOBS = envNumber('BENCH_PIPELINE_JOBS', 200);
const INTERVAL_MS = envNumber('BENCH_PIPELINE_INTERVAL_MS', 100);
const WARMUP = Math.floor(envNumber('BENCH_PIPELINE_WARMUP', 10));

/** Calls `fire(i)` for i = 0..n-1, the i-th at start + i * INTERVAL_MS (an open loop: no waiting for answers). */
async function paced(n: number, fire: (i: number) => void): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = start + i * INTERVAL_MS - performance.now();
    if (wait > 0) await sleep(wait);
    fire(i);
  }
}

async function ours(fleet: BenchFleet): Promise<Summary> {
  const receiver = await startTimedReceiver((headers, body) =>
    headers['x-service-event'] === 'job.completed' ? String((JSON.parse(body) as { job_id: string }).job_id) : null,
  );
  try {
    const user = await fleet.userWithKey('all');
    await fleet.admin('webhook:set', '--key-id', String(user.keyId), '--url', receiver.url);
    const ids = await holdJobs(fleet, user.key, WARMUP + JOBS, 'bench pipeline');
    const warm = ids.slice(0, WARMUP);
    const measured = ids.slice(WARMUP);

    await paced(warm.length, (i) => fleet.provider.complete(warm[i]));
    await receiver.waitFor(warm.length, 60_000);

    const completedAt = new Map<string, number>();
    await paced(measured.length, (i) => completedAt.set(measured[i], fleet.provider.complete(measured[i])));
    await receiver.waitFor(ids.length, 120_000).catch((err: Error) => {
      throw new Error(`${err.message} (webhook requests that were not job.completed: ${receiver.ignored()})`);
    });
    return summarize(measured.map((id) => receiver.arrivals.get(id)! - completedAt.get(id)!));
  } finally {
    await receiver.close();
  }
}

async function baseline(fleet: BenchFleet): Promise<Summary> {
  const receiver: TimedReceiver = await startTimedReceiver((_headers, body) =>
    String((JSON.parse(body) as { seq: number }).seq),
  );
  const queue = 'bench.relay';
  const relay = await startBare('bare-relay', {
    AMQP_URL: fleet.amqpUrl,
    BARE_QUEUE: queue,
    BARE_TARGET_URL: receiver.url,
  });
  const conn = await amqp.connect(fleet.amqpUrl);
  try {
    const channel = await conn.createConfirmChannel();
    await channel.assertQueue(queue, { durable: true });
    // About the size of a job.completed webhook body.
    const job = {
      status: 'completed',
      model: 'fal-ai/imagegen-2',
      type: 'image',
      credits_consumed: 50,
      created_at: new Date().toISOString(),
      completed_at: new Date().toISOString(),
      result: { images: ['http://127.0.0.1/media/jobs/job_0123456789abcdef/image-1.png'] },
      error: null,
    };
    const publish = (seq: number) =>
      channel.publish(
        '',
        queue,
        Buffer.from(JSON.stringify({ seq, job_id: `job_${seq}`, ...job })),
        { persistent: true, contentType: 'application/json' },
        () => undefined,
      );

    await paced(WARMUP, (i) => publish(-1 - i));
    await receiver.waitFor(WARMUP, 60_000);
    const sentAt = new Map<number, number>();
    await paced(JOBS, (i) => {
      sentAt.set(i, performance.now());
      publish(i);
    });
    await receiver.waitFor(WARMUP + JOBS, 120_000);
    return summarize([...sentAt].map(([seq, at]) => receiver.arrivals.get(String(seq))! - at));
  } finally {
    await conn.close();
    await relay.stop();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `pipeline bench: ${JOBS} jobs (after ${WARMUP} warm-up), one completion every ${INTERVAL_MS} ms; ${machineLine()}`,
  );
  const fleet = await startBenchFleet();
  let failed = true;
  try {
    for (const note of fleet.notes) console.log(`  fleet: ${note}`);
    const mine = await ours(fleet);
    const base = await baseline(fleet);
    console.log('');
    const row = (label: string, s: Summary) => [
      label,
      String(s.count),
      num(s.p50),
      num(s.p99),
      num(s.mean),
      num(s.max),
    ];
    printTable(
      ['', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'],
      [row('provider completion -> webhook received', mine), row('publish -> consume -> HTTP POST (bare)', base)],
    );
    console.log('');
    printTable(
      ['ratio ours / baseline', 'p50', 'p99'],
      [['completion -> webhook', ratio(mine.p50, base.p50), ratio(mine.p99, base.p99)]],
    );
    failed = false;
  } finally {
    await fleet.shutdown({ failed });
  }
}

runBench(main);
