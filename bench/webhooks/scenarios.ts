import { performance } from 'node:perf_hooks';
import { sleep } from '../lib/env';
import { summarize, type Summary } from '../lib/stats';
import { startBenchReceiver } from './receivers';

/**
 * The two webhook isolation scenarios, as functions of a target: this bench runs them against one
 * dispatcher replica fed directly through the broker (run.ts); a bench of a whole fleet can pass
 * its own target (tenants made with the admin CLI, jobs completed at the provider).
 */
export interface WebhookTarget {
  /** A new tenant (an API key) whose webhook URL is `url`. */
  tenant: (url: string) => Promise<WebhookTenant>;
  /**
   * Resolves once every job completed so far has its event out (jobs completed, outbox published):
   * from then on its deliveries are owed. A target that publishes the events itself needs none.
   */
  settle?: () => Promise<void>;
}

export interface WebhookTenant {
  /**
   * Completes one of the tenant's jobs now, so that its `job.completed` is owed to the tenant's
   * endpoint; resolves the job id (the receivers find it in the webhook body).
   */
  completeJob: () => Promise<string>;
}

export interface ThroughputOptions {
  jobs: number;
  endpoints: number;
  /** Every endpoint answers each request after this long. */
  answerAfterMs: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
}

export interface ThroughputResult {
  /** From the first completion to the last answer of the receivers; NaN when not all were delivered. */
  seconds: number;
  delivered: number;
  /** Seconds spent completing the jobs (publishing their events). */
  completeSeconds: number;
  /** Most requests the receivers held open at once, in all and at one endpoint. */
  peakOpen: { all: number; perPath: number };
}

/**
 * (a) `jobs` completions spread evenly over `endpoints` endpoints that each answer after
 * `answerAfterMs`: the time until every one was delivered (answered with a 2xx).
 */
export async function throughputOverEndpoints(target: WebhookTarget, o: ThroughputOptions): Promise<ThroughputResult> {
  const receiver = await startBenchReceiver(o.answerAfterMs);
  try {
    const tenants: WebhookTenant[] = [];
    for (let i = 0; i < o.endpoints; i++) tenants.push(await target.tenant(receiver.url(`/endpoint/${i}`)));
    const start = performance.now();
    // Completed in parallel per endpoint, as many tenants' jobs end at once.
    await Promise.all(
      tenants.map(async (t, i) => {
        for (let j = i; j < o.jobs; j += o.endpoints) await t.completeJob();
      }),
    );
    const completeSeconds = (performance.now() - start) / 1000;
    const all = await receiver.waitFor(o.jobs, o.timeoutMs);
    const last = Math.max(...receiver.answered.values());
    return {
      seconds: all ? (last - start) / 1000 : NaN,
      delivered: receiver.answered.size,
      completeSeconds,
      peakOpen: receiver.peakOpen(),
    };
  } finally {
    await receiver.close();
  }
}

export interface HangingNeighbourOptions {
  /** Deliveries owed to the endpoint that never answers, before the measured tenant starts. */
  owed: number;
  /** The measured tenant's jobs, completed at `perSecond`. */
  jobs: number;
  perSecond: number;
  /** Give up waiting for the measured tenant's deliveries after this long. */
  timeoutMs: number;
}

export interface HangingNeighbourResult {
  /** Completion -> arrival at the measured tenant's endpoint, of the deliveries that arrived. */
  latency: Summary;
  delivered: number;
  /** Requests the hanging endpoint held open at once at most. */
  hangingPeakOpen: number;
}

/**
 * (b) One tenant's endpoint never answers while `owed` deliveries are owed to it; meanwhile another
 * tenant's `jobs` complete at `perSecond`: that tenant's completion -> delivery latency.
 */
export async function besideHangingEndpoint(
  target: WebhookTarget,
  o: HangingNeighbourOptions,
): Promise<HangingNeighbourResult> {
  const hanging = await startBenchReceiver('hang');
  const fine = await startBenchReceiver(0);
  try {
    const stuck = await target.tenant(hanging.url('/hangs'));
    const measured = await target.tenant(fine.url('/answers'));
    for (let i = 0; i < o.owed; i++) await stuck.completeJob();
    await target.settle?.();
    // The hanging endpoint holds what it can before the measured tenant starts.
    await hanging.waitFor(1, o.timeoutMs);
    const completedAt = new Map<string, number>();
    const interval = 1000 / o.perSecond;
    const start = performance.now();
    for (let i = 0; i < o.jobs; i++) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      const before = performance.now();
      completedAt.set(await measured.completeJob(), before);
    }
    await fine.waitFor(o.jobs, o.timeoutMs);
    const samples = [...completedAt]
      .filter(([id]) => fine.arrivals.has(id))
      .map(([id, at]) => fine.arrivals.get(id)! - at);
    return { latency: summarize(samples), delivered: samples.length, hangingPeakOpen: hanging.peakOpen().all };
  } finally {
    await hanging.close();
    await fine.close();
  }
}
