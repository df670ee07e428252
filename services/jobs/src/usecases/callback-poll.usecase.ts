import type { CallbackDelivery } from '../providers/provider';
import { claimJob, pollNow } from '../repositories/jobs.repository';
import { LEASE_MS } from './advance-job.usecase';
import { Advancer } from './advancer';
import type { JobsContext } from './context';

/**
 * Polls the jobs providers call back about at once, outside the poller's rounds: a completion
 * callback goes straight to its job (one claim, then status, result, storage, completion) instead of
 * making the job due and waiting for the next round, which may be busy with other jobs' downloads.
 * A job this process is advancing already (a round has it) is only made due again, as before, so
 * one process never advances a job twice at once. Crash-safe like a round: the claim's lease ends
 * and the poller takes the job. Claimed jobs are advanced on the `advancer` the poller shares,
 * within its cap; the others wait their turn (claimed, so no other poller takes them): when
 * callbacks come faster than jobs can be advanced, unbounded advances would fill the database pool
 * and queue the next callbacks' claims behind all of them.
 */
export class CallbackPolls {
  constructor(
    private readonly ctx: JobsContext,
    private readonly wakePoller: () => void,
    readonly advancer: Advancer = new Advancer(ctx, 20),
  ) {}

  /** Every job this process is advancing now, the poller's rounds' included. */
  get inFlight(): ReadonlySet<string> {
    return this.advancer.inFlight;
  }

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
    // Held while the claim is under way, so a second callback for the job is not claimed beside it.
    this.advancer.inFlight.add(jobId);
    let job;
    try {
      job = await claimJob(this.ctx.db, jobId, LEASE_MS, on);
    } finally {
      if (!job) this.advancer.inFlight.delete(jobId);
    }
    if (!job) return false;
    void this.advancer.advance(job, { hint: { calledBack: true, ...(callback ? { callback } : {}) } });
    return true;
  }

  /** Waits for the advances under way (the poller's too). */
  drain(): Promise<void> {
    return this.advancer.drain();
  }
}
