import { claimJob, pollNow } from '../repositories/jobs.repository';
import { advanceJob, LEASE_MS } from './advance-job.usecase';
import type { JobsContext } from './context';

/**
 * Polls the jobs providers call back about at once, outside the poller's rounds: a completion
 * callback goes straight to its job (one claim, then status, result, storage, completion) instead of
 * making the job due and waiting for the next round, which may be busy with other jobs' downloads.
 * A job this process is advancing already (a round has it) is only made due again, as before, so
 * one process never advances a job twice at once. Crash-safe like a round: the claim's lease ends
 * and the poller takes the job.
 */
export class CallbackPolls {
  /** Every job this process is advancing now: the poller's rounds add theirs too. */
  readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ctx: JobsContext,
    private readonly wakePoller: () => void,
  ) {}

  /** Starts polling the job now; false when it is not processing (nothing to poll). */
  async pollNow(jobId: string): Promise<boolean> {
    if (this.inFlight.has(jobId)) {
      const due = await pollNow(this.ctx.db, jobId);
      if (due) this.wakePoller();
      return due;
    }
    return this.claimAndAdvance(jobId);
  }

  /**
   * Starts polling the job now if it is processing on `attempt` with one of `providers`, checked
   * by the claim itself (one statement); false otherwise, and when this process is advancing it
   * already: the caller then looks closer (and may call pollNow).
   */
  async pollIfCurrent(jobId: string, attempt: number, providers: string[]): Promise<boolean> {
    if (this.inFlight.has(jobId) || providers.length === 0) return false;
    return this.claimAndAdvance(jobId, { attempt, providers });
  }

  private async claimAndAdvance(jobId: string, on?: { attempt: number; providers: string[] }): Promise<boolean> {
    this.inFlight.add(jobId);
    let job;
    try {
      job = await claimJob(this.ctx.db, jobId, LEASE_MS, on);
    } finally {
      if (!job) this.inFlight.delete(jobId);
    }
    if (!job) return false;
    const run = advanceJob(this.ctx, job, { calledBack: true })
      .catch((err: unknown) => this.ctx.logger.error({ err, jobId }, 'advancing a job failed'))
      .finally(() => {
        this.inFlight.delete(jobId);
        this.running.delete(run);
      });
    this.running.add(run);
    return true;
  }

  /** Waits for the polls under way (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
