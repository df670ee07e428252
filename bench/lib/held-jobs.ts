import { sleep } from './env';
import { submitImageJob, type BenchFleet } from './fleet';

/** Waits until `check` holds, checking every 50 ms; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Submits `n` jobs (8 at a time) and lets the jobs service poll each once, so none is due any more. */
export async function holdJobs(fleet: BenchFleet, key: string, n: number, prompt: string): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        next += 1;
        ids.push(await submitImageJob(fleet, key, prompt));
      }
    }),
  );
  // A callback polls its job at once (the poller's own round would wait POLL_INTERVAL_MS): one each.
  for (let i = 0; i < ids.length; i += 8) await Promise.all(ids.slice(i, i + 8).map((id) => fleet.provider.poke(id)));
  await until(
    'the first poll of every held job',
    () => ids.every((id) => fleet.provider.statusCalls(id) >= 1),
    120_000,
  );
  return ids;
}
