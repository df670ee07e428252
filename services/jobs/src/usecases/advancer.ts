import type { JobRow } from '../domain/job';
import type { StatusHint } from '../providers/provider';
import { advanceJob } from './advance-job.usecase';
import type { JobsContext } from './context';

/**
 * Rounds' worth of jobs (POLL_BATCH each) one process advances at once. An advance mostly waits on
 * its upstream (the status call, the download): to spend a limit of L status calls a second on
 * advances taking T seconds, L x T must be under way at once (Little's law); at 200 a second and the
 * 0.3-0.5 s an advance takes on a loaded machine that is 60-100, five rounds of 20. More would only
 * queue on the database pool (its few statements per advance) and hold more downloads in memory.
 */
export const ADVANCING_ROUNDS = 5;

/**
 * The jobs this process is advancing, at most `max` at once, shared by the poller's rounds and the
 * provider callbacks, so that together they never fill the database pool or memory. A round holds
 * turns before it claims (`hold`), so its jobs start at once: their status calls go out when the
 * status-call budget counted them. A callback's job, claimed first, waits for a free turn instead
 * (claimed, so no other poller takes it). `inFlight` has every job held here, waiting or advancing,
 * so one process never advances a job twice at once; `drain` waits for them all (shutdown).
 */
export class Advancer {
  readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  /** Turns in use: jobs advancing and turns held by a round whose claim is under way. */
  private taken = 0;
  private readonly waiting: Array<() => void> = [];
  /** Turns a round wanted and did not get: once that many are free, `onRoom` wakes the poller. */
  private wanted = 0;

  constructor(
    private readonly ctx: JobsContext,
    readonly max: number,
    private readonly onRoom: () => void = () => undefined,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error('an advancer needs at least one turn');
  }

  /**
   * Holds up to `want` turns for jobs about to be claimed; how many it got (0 when the cap is
   * reached; `onRoom` is then called once `want` are free again). Each is used by `advance(job,
   * { held: true })` or given back with `release`.
   */
  hold(want: number): number {
    const n = Math.max(0, Math.min(want, this.room()));
    this.taken += n;
    if (n < want) this.wanted = Math.min(want, this.max);
    return n;
  }

  /** Turns free now (0 while jobs wait for one). */
  room(): number {
    return this.waiting.length ? 0 : this.max - this.taken;
  }

  /** Gives back `n` held turns that found no job. */
  release(n: number): void {
    for (let i = 0; i < n; i++) this.endTurn();
  }

  /**
   * Advances the job: at once on a turn held for it, else when a turn is free. Resolves when done
   * (an error is logged, never thrown).
   */
  advance(job: JobRow, opts: { held?: boolean; hint?: StatusHint } = {}): Promise<void> {
    this.inFlight.add(job.id);
    const turn = opts.held ? Promise.resolve() : this.turn();
    const run = turn
      .then(() => advanceJob(this.ctx, job, opts.hint))
      .catch((err: unknown) => this.ctx.logger.error({ err, jobId: job.id }, 'advancing a job failed'))
      .finally(() => {
        this.inFlight.delete(job.id);
        this.running.delete(run);
        this.endTurn();
      });
    this.running.add(run);
    return run;
  }

  /** Waits until nothing is being advanced, jobs handed over meanwhile included (shutdown). */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private turn(): Promise<void> {
    if (this.taken < this.max) {
      this.taken++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private endTurn(): void {
    const next = this.waiting.shift();
    // The turn passes straight to the next job waiting.
    if (next) return next();
    this.taken--;
    if (this.wanted && this.max - this.taken >= this.wanted) {
      this.wanted = 0;
      this.onRoom();
    }
  }
}
