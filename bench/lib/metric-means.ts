/**
 * Means of a service's histograms (sum / count) from its /metrics, per label set: where a request's
 * time goes between the services (RPC calls as their callers see them, provider submits, batch sizes).
 */
export async function histogramMeans(
  baseUrl: string,
  names: string[],
): Promise<Map<string, { mean: number; count: number }>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)_(sum|count)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (!m || !names.includes(m[1])) continue;
    const key = `${m[1]}${m[3] ?? ''}`;
    (m[2] === 'sum' ? sums : counts).set(key, Number(m[4]));
  }
  const out = new Map<string, { mean: number; count: number }>();
  for (const [key, count] of counts) if (count > 0) out.set(key, { mean: (sums.get(key) ?? 0) / count, count });
  return out;
}

/** Differences between two readings (the load between them), as printable lines. */
export function meansBetween(
  before: Map<string, { mean: number; count: number }>,
  after: Map<string, { mean: number; count: number }>,
): string[] {
  const lines: string[] = [];
  for (const [key, a] of after) {
    const b = before.get(key) ?? { mean: 0, count: 0 };
    const n = a.count - b.count;
    if (n <= 0) continue;
    const mean = (a.mean * a.count - b.mean * b.count) / n;
    const seconds = key.includes('seconds');
    lines.push(`${key}: n=${n}, mean ${seconds ? `${(mean * 1000).toFixed(2)} ms` : mean.toFixed(2)}`);
  }
  return lines;
}
