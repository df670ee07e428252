/**
 * Webhooks benchmark: delivery lanes under load, on one webhook-dispatcher replica (the service
 * process, from source, production defaults) fed job.completed events through the broker exactly
 * as the jobs outbox relay publishes them. Two scenarios (scenarios.ts):
 *   a) 1,000 completions spread over 100 endpoints that each answer after 1 s: time until all are
 *      delivered (the goal: < 15 s);
 *   b) one endpoint never answers while 500 deliveries are owed to it, and another tenant's 100
 *      jobs complete at 10/s: that tenant's completion -> delivery p50/p99 (the goal: p99 < 500 ms).
 * Each scenario gets a fresh database, vhost and dispatcher. Prints figures; no pass/fail.
 *
 *   npm run bench -- webhooks          (node --import tsx bench/webhooks/run.ts)
 *
 * Knobs: BENCH_WEBHOOK_JOBS (1000), BENCH_WEBHOOK_ENDPOINTS (100), BENCH_WEBHOOK_OWED (500),
 * BENCH_WEBHOOK_NEIGHBOUR_JOBS (100), BENCH_WEBHOOK_TIMEOUT_SEC (120).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess, waitReady } from '@mf/fleet';
import { Bus } from '../../libs/bus/src';
import { jobEvents, webhookOutboundRpc, type JobEventPayload } from '../../libs/contracts/src';
import { createLogger } from '../../libs/logger/src';
import { freePort, freshTestEnv } from '../../libs/testing/src';
import { envNumber, machineLine } from '../lib/env';
import { runBench } from '../lib/fleet';
import { num } from '../lib/stats';
import { printTable } from '../lib/table';
import { besideHangingEndpoint, throughputOverEndpoints, type WebhookTarget } from './scenarios';

const JOBS = envNumber('BENCH_WEBHOOK_JOBS', 1000);
const ENDPOINTS = envNumber('BENCH_WEBHOOK_ENDPOINTS', 100);
const OWED = envNumber('BENCH_WEBHOOK_OWED', 500);
const NEIGHBOUR_JOBS = envNumber('BENCH_WEBHOOK_NEIGHBOUR_JOBS', 100);
const TIMEOUT_MS = envNumber('BENCH_WEBHOOK_TIMEOUT_SEC', 120) * 1000;

/** One dispatcher replica on a fresh database and vhost, and a target that feeds it as jobs would. */
async function withDispatcher<T>(run: (target: WebhookTarget) => Promise<T>): Promise<T> {
  const env = await freshTestEnv();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-bench-webhooks-'));
  const proc = startServiceProcess(
    'webhook-dispatcher',
    await freePort(),
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: env.databaseUrl,
      AMQP_URL: env.amqpUrl,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    { file: path.join(logDir, 'webhook-dispatcher.log') },
  );
  const bus = new Bus({ url: env.amqpUrl, service: 'bench', logger: createLogger('bench', 'silent') });
  let failed = true;
  try {
    await waitReady(proc, 120_000);
    await bus.start();
    let keys = 0;
    let events = Date.now() * 1000;
    const target: WebhookTarget = {
      tenant: async (url) => {
        const apiKeyId = ++keys;
        await bus.rpc(webhookOutboundRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: apiKeyId, url });
        return {
          completeJob: async () => {
            const eventId = `evt_${String(++events).padStart(16, '0')}`;
            const payload = completedJob(`job_bench${events}`, apiKeyId, eventId);
            await bus.publishEvent(jobEvents.completed, payload);
            return payload.job_id;
          },
        };
      },
    };
    const result = await run(target);
    failed = false;
    return result;
  } finally {
    await bus.close();
    await proc.stop('SIGTERM');
    await env.teardown();
    if (failed || process.env.BENCH_KEEP_LOGS === '1') console.log(`dispatcher log kept in ${logDir}`);
    else fs.rmSync(logDir, { recursive: true, force: true });
  }
}

/** A job.completed as the jobs relay publishes it. */
function completedJob(jobId: string, apiKeyId: number, eventId: string): JobEventPayload {
  const now = new Date().toISOString();
  return {
    job_id: jobId,
    user_id: apiKeyId,
    api_key_id: apiKeyId,
    status: 'completed',
    model_id: 'imagegen-2',
    upstream_model: 'fal-ai/imagegen-2',
    type: 'image',
    credits_consumed: 50,
    created_at: now,
    completed_at: now,
    result: { images: [`http://127.0.0.1/media/jobs/${jobId}/image-1.png`] },
    error: null,
    source: 'api',
    project_id: null,
    event_id: eventId,
  };
}

async function main(): Promise<void> {
  console.log(`webhooks bench: one dispatcher replica, production defaults; ${machineLine()}`);
  const a = await withDispatcher((target) =>
    throughputOverEndpoints(target, { jobs: JOBS, endpoints: ENDPOINTS, answerAfterMs: 1000, timeoutMs: TIMEOUT_MS }),
  );
  const b = await withDispatcher((target) =>
    besideHangingEndpoint(target, { owed: OWED, jobs: NEIGHBOUR_JOBS, perSecond: 10, timeoutMs: TIMEOUT_MS }),
  );
  console.log('');
  printTable(
    [
      'a) completions over endpoints answering after 1 s',
      'delivered',
      'all delivered in s',
      'published in s',
      'peak open',
      'peak open at one endpoint',
    ],
    [
      [
        `${JOBS} over ${ENDPOINTS} endpoints`,
        `${a.delivered}/${JOBS}`,
        num(a.seconds),
        num(a.completeSeconds),
        String(a.peakOpen.all),
        String(a.peakOpen.perPath),
      ],
    ],
  );
  console.log('');
  printTable(
    ['b) beside an endpoint that never answers', 'delivered', 'p50 ms', 'p99 ms', 'max ms', 'open at the hanging one'],
    [
      [
        `${NEIGHBOUR_JOBS} jobs at 10/s, ${OWED} owed to the hanging one`,
        `${b.delivered}/${NEIGHBOUR_JOBS}`,
        num(b.latency.p50),
        num(b.latency.p99),
        num(b.latency.max),
        String(b.hangingPeakOpen),
      ],
    ],
  );
  if (b.delivered < NEIGHBOUR_JOBS)
    console.log(`  (b) ${NEIGHBOUR_JOBS - b.delivered} deliveries had not arrived after ${TIMEOUT_MS / 1000} s`);
}

runBench(main);
