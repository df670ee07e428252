import { currentAttempt, type JobRow } from '../domain/job';
import type { ProviderStatus, ProviderType, UpstreamUsage } from '../providers/provider';
import { setAttemptCost, type UpstreamCostSource } from '../repositories/attempts.repository';
import type { RoutePrice } from '../routing/providers-document';
import type { JobsContext } from './context';

export interface UpstreamCost {
  usd: number;
  source: UpstreamCostSource;
}

/** Dollars to the micro-dollar the column keeps. */
const micro = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/**
 * What an attempt cost upstream (docs/usage.md): the upstream's own figure first, then its usage
 * priced with the route's price, then the route's price for what was made (images, seconds of
 * video). Null when nothing tells: the local provider, a route without a price, a failure the
 * upstream reported no usage for (upstreams do not bill those, as far as we can know).
 */
export function upstreamCost(
  providerType: ProviderType | undefined,
  price: RoutePrice | undefined,
  job: Pick<JobRow, 'type' | 'params'>,
  result: { usage?: UpstreamUsage; outputs?: number },
): UpstreamCost | null {
  if (providerType === 'local') return null;
  const usage = result.usage;
  if (usage && 'costUsd' in usage) return { usd: micro(usage.costUsd), source: 'reported' };
  if (usage && 'computeSeconds' in usage && price?.per_compute_second !== undefined)
    return { usd: micro(usage.computeSeconds * price.per_compute_second), source: 'metered' };
  if (usage && 'billedUnits' in usage && price?.per_unit !== undefined)
    return { usd: micro(usage.billedUnits * price.per_unit), source: 'metered' };
  if (!result.outputs || !price) return null;
  if (job.type === 'image' && price.per_image !== undefined)
    return { usd: micro(result.outputs * price.per_image), source: 'price' };
  if (job.type === 'video' && price.per_second !== undefined && 'duration_seconds' in job.params)
    return { usd: micro(job.params.duration_seconds * price.per_second), source: 'price' };
  return null;
}

/**
 * Records on the job's current attempt what it cost upstream, given how the attempt ended, and counts
 * it (once) in the provider's metrics. The price is the one the job's route was submitted with.
 */
export async function recordUpstreamCost(
  ctx: JobsContext,
  job: JobRow,
  status: Exclude<ProviderStatus, { state: 'running' }>,
): Promise<void> {
  const n = currentAttempt(job);
  if (n < 1) return;
  const route = job.routes?.[n - 1];
  const price = route?.provider === job.provider ? route.price : undefined;
  const outputs = status.state === 'completed' ? status.outputs.length : 0;
  const cost = upstreamCost(ctx.routing.spec(job.provider)?.type, price, job, { usage: status.usage, outputs });
  if (!cost) return;
  try {
    if (await setAttemptCost(ctx.db, job.id, n, cost))
      ctx.routing.metrics.upstreamCost.inc({ provider: job.provider, model: job.model_id }, cost.usd);
  } catch (err) {
    // A cost not recorded must not hold the job's result back.
    ctx.logger.warn({ err: (err as Error).message, jobId: job.id, attempt: n }, 'recording the upstream cost failed');
  }
}
