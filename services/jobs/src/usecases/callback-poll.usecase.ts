import type { CallbackDelivery } from '../providers/provider';
import { claimJob, pollNow } from '../repositories/jobs.repository';
import { advanceJob, LEASE_MS } from './advance-job.usecase';
import type { JobsContext } from './context';

/**
 * Polls the jobs providers call back about at once, outside the poller's rounds: a completion
 * callback goes straight to its job (one claim, then status, result, storage, completion) instead of
 * making the job due and waiting for the next round, which may be busy with other jobs' downloads.
 * A job this process is advancing already (a round has it) is only made due again, as before, so
 * one process never advances a job twice at once. Crash-safe like a round: the claim's lease ends
 * and the poller takes the job. At most `maxAdvancing` claimed jobs are advanced at once, the others
 * wait their turn (claimed, so no other poller takes them): when callbacks come faster than jobs
 * can be advanced, unbounded advances would fill the database pool, and the next callback's claim,
 * which its RPC reply waits for, would queue behind all of them until the request expires and the
 * callback is lost.
 */
export class CallbackPolls {
  /** Every job this process is advancing now: the poller's rounds add theirs too. */
  readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private advancing = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly ctx: JobsContext,
    private readonly wakePoller: () => void,
    private readonly maxAdvancing = 20,
  ) {}

  /**
   * Starts polling the job now; false when it is not processing (nothing to poll). `callback`: the
   * signed callback, whose outcome the provider may take instead of asking (Provider.callbackResult).
   */
  async pollNow(jobId: string, callback?: CallbackDelivery): Promise<boolean> {
    if (this.inFlight.has(jobId)) {
      const due = await pollNow(this.ctx.db, jobId);
      if (due) this.wakePoller();
      return due;
    }
    return this.claimAndAdvance(jobId, undefined, callback);
  }

  /**
   * Starts polling the job now if it is processing on `attempt` with one of `providers`, checked
   * by the claim itself (one statement); false otherwise, and when this process is advancing it
   * already: the caller then looks closer (and may call pollNow).
   */
  async pollIfCurrent(
    jobId: string,
    attempt: number,
    providers: string[],
    callback?: CallbackDelivery,
  ): Promise<boolean> {
    if (this.inFlight.has(jobId) || providers.length === 0) return false;
    return this.claimAndAdvance(jobId, { attempt, providers }, callback);
  }

  private async claimAndAdvance(
    jobId: string,
    on?: { attempt: number; providers: string[] },
    callback?: CallbackDelivery,
  ): Promise<boolean> {
    this.inFlight.add(jobId);
    let job;
    try {
      job = await claimJob(this.ctx.db, jobId, LEASE_MS, on);
    } finally {
      if (!job) this.inFlight.delete(jobId);
    }
    if (!job) return false;
    const run = this.turn()
      .then(() =>
        advanceJob(this.ctx, job, { calledBack: true, ...(callback ? { callback } : {}) })
          .catch((err: unknown) => this.ctx.logger.error({ err, jobId }, 'advancing a job failed'))
          .finally(() => this.endTurn()),
      )
      .finally(() => {
        this.inFlight.delete(jobId);
        this.running.delete(run);
      });
    this.running.add(run);
    return true;
  }

  /** Resolves when this job may be advanced (one of maxAdvancing). */
  private turn(): Promise<void> {
    if (this.advancing < this.maxAdvancing) {
      this.advancing++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private endTurn(): void {
    const next = this.waiting.shift();
    // The turn passes straight to the next job waiting.
    if (next) next();
    else this.advancing--;
  }

  /** Waits for the polls under way (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
