import type { Bus } from '@mf/bus';
import { ROUTING_KEYS } from '@mf/contracts';

/** Job ids that ended recently, remembered for a wait that starts after their event arrived. */
const REMEMBERED = 1000;

/**
 * The editor waits for its generations by listening: every replica has a broker queue of its own
 * (exclusive, deleted with the connection) bound to the terminal job events, and a turn waiting
 * for a job wakes as soon as it ends. Polling the jobs service stays as the safety net (a missed
 * event, a broker blip): a wait also ends after its poll interval.
 */
export class JobSettledListener {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly settled = new Set<string>();

  /** safetyPollMs: the longest a wait lasts without an event (then the caller polls the job). */
  constructor(private readonly safetyPollMs = 10_000) {}

  /** Subscribes on the bus (now if connected, and on every reconnect). */
  start(bus: Bus): Promise<void> {
    return bus.subscribe({
      bindings: [ROUTING_KEYS.jobCompleted, ROUTING_KEYS.jobFailed, ROUTING_KEYS.jobCancelled],
      handle: (_key, payload) => {
        const jobId = (payload as { job_id?: unknown } | null)?.job_id;
        if (typeof jobId === 'string') this.ended(jobId);
      },
    });
  }

  ended(jobId: string): void {
    this.settled.add(jobId);
    if (this.settled.size > REMEMBERED) this.settled.delete(this.settled.values().next().value as string);
    for (const wake of this.waiting.get(jobId) ?? []) wake();
    this.waiting.delete(jobId);
  }

  /** Resolves when the job ends (or already has), or after the safety-net interval (at most `atMostMs`). */
  wait(jobId: string, atMostMs: number): Promise<void> {
    const ms = Math.max(1, Math.min(this.safetyPollMs, atMostMs));
    if (this.settled.has(jobId)) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiting.get(jobId) ?? new Set<() => void>();
      this.waiting.set(jobId, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(jobId) === set) this.waiting.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }
}
