import type { Bus } from '@mf/bus';
import { JOB_REFS_MAX, jobsRpc, type Job, type JobRef } from '@mf/contracts';
import { AppError } from '@mf/errors';

/** jobs' own 404 text for a job that is missing or another user's (the same bytes either way). */
export const JOB_NOT_FOUND = 'Job not found';

interface Reader {
  resolve: (job: Job) => void;
  reject: (err: unknown) => void;
  correlationId?: string;
}

/** The readers of one ref in a batch (the same job read by several requests at once is asked for once). */
interface RefReaders {
  ref: JobRef;
  readers: Reader[];
}

/**
 * Reads of single jobs made in the same turn of the event loop (requests that arrived together)
 * go to jobs as one jobs.get-many: one broker message each way and one query instead of one per
 * request. A read alone goes as a plain jobs.get with its request's correlation id, as before, and
 * waits no longer than the current turn. Each reader gets what jobs.get would have answered it: its
 * Job, the same 404, or the call's failure (timeout, broker lost) for every reader of the batch.
 */
export class JobReads {
  private pending = new Map<string, RefReaders>();

  constructor(private readonly bus: Bus) {}

  read(ref: JobRef, opts: { correlationId?: string } = {}): Promise<Job> {
    return new Promise<Job>((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(this.flush);
      const key = `${ref.user_id}:${ref.job_id}`;
      const reader = { resolve, reject, correlationId: opts.correlationId };
      const same = this.pending.get(key);
      if (same) same.readers.push(reader);
      else this.pending.set(key, { ref, readers: [reader] });
    });
  }

  private readonly flush = (): void => {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    for (let i = 0; i < batch.length; i += JOB_REFS_MAX) void this.send(batch.slice(i, i + JOB_REFS_MAX));
  };

  private async send(batch: RefReaders[]): Promise<void> {
    try {
      if (batch.length === 1) {
        const [{ ref, readers }] = batch;
        const job = await this.bus.rpc(jobsRpc, 'get', ref, { correlationId: readers[0].correlationId });
        for (const r of readers) r.resolve(job);
        return;
      }
      const jobs = await this.getMany(batch);
      if (!jobs) {
        await Promise.all(batch.map((one) => this.send([one])));
        return;
      }
      batch.forEach(({ readers }, i) => {
        const job = jobs[i];
        for (const r of readers) {
          if (job) r.resolve(job);
          else r.reject(AppError.notFound(JOB_NOT_FOUND));
        }
      });
    } catch (err) {
      for (const { readers } of batch) for (const r of readers) r.reject(err);
    }
  }

  /**
   * The batch's jobs, or null when jobs answered with an internal error: what a jobs service older
   * than jobs.get-many answers (mid rolling upgrade), so the reads go one by one instead of failing.
   */
  private async getMany(batch: RefReaders[]): Promise<Array<Job | null> | null> {
    try {
      const { jobs } = await this.bus.rpc(jobsRpc, 'getMany', { refs: batch.map((b) => b.ref) });
      return jobs;
    } catch (err) {
      if (err instanceof AppError && err.kind === 'internal') return null;
      throw err;
    }
  }
}
