import { readFileSync } from 'node:fs';

/** Resident set size of a process in MiB (VmRSS of /proc/<pid>/status); NaN once it is gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples the RSS of some processes every `everyMs` until stopped; resolves each one's peak. */
export function sampleRss(pids: Record<string, number>, everyMs = 250): { stop: () => Record<string, number> } {
  const peak: Record<string, number> = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const take = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const v = rssMiB(pid);
      if (v > peak[name]) peak[name] = v;
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/** The median of `n` readings `everyMs` apart: one idle figure less sensitive to a GC in flight. */
export async function idleRss(pid: number, n = 5, everyMs = 200): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    values.push(rssMiB(pid));
    if (i < n - 1) await new Promise((r) => setTimeout(r, everyMs));
  }
  return values.sort((a, b) => a - b)[Math.floor(n / 2)];
}
