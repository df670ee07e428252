import autocannon from 'autocannon';
import { DURATION_SEC, WARMUP_SEC } from './env';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds of measured load (after WARMUP_SEC of the same load, not measured). */
  durationSec?: number;
}

export interface LoadResult {
  /** Responses per second over the measured run (every status). */
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** Responses per status code, plus "errors" for connection errors and timeouts. */
  statuses: Record<string, number>;
}

async function once(spec: LoadSpec, durationSec: number): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    duration: durationSec,
    timeout: 30,
  });
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  if (result.errors) statuses.errors = result.errors;
  const total = Object.entries(statuses).reduce((s, [k, v]) => (k === 'errors' ? s : s + v), 0);
  return { rps: total / result.duration, p50: result.latency.p50, p99: result.latency.p99, total, statuses };
}

/** autocannon at a fixed number of connections: a warm-up, then the measured run (`onMeasuredStart` marks its start). */
export async function runLoad(spec: LoadSpec, onMeasuredStart?: () => void | Promise<void>): Promise<LoadResult> {
  if (WARMUP_SEC > 0) await once(spec, WARMUP_SEC);
  await onMeasuredStart?.();
  return once(spec, spec.durationSec ?? DURATION_SEC);
}

/** "202 x 1234" or "200 x 900, 503 x 3, errors x 1". */
export function describeStatuses(r: LoadResult): string {
  return Object.entries(r.statuses)
    .map(([k, v]) => `${k} x ${v}`)
    .join(', ');
}
