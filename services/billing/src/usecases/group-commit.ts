import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { batchKeys, planBatch, type BatchOp, type BatchOutcome } from '../domain/batch';
import { KeyCounters } from '../domain/key-limits';
import { lockAndRead, writeBatch } from '../repositories/batch.repository';

interface Waiting {
  op: BatchOp;
  resolve: (outcome: BatchOutcome) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most operations in one transaction. */
  maxBatch: number;
  logger: Logger;
  /** Called with the size of each committed batch (a metric). */
  onBatch?: (size: number) => void;
}

/**
 * Group commit for charges, refunds and job ends (key limits, domain/key-limits.ts): operations that arrive while a batch is being committed
 * wait for it and then go together, in arrival order, in one transaction of two statements
 * (lock_batch, then one write). Alone, an operation is committed at once, so a single caller
 * waits for nothing. Every caller is answered only after its batch has committed: a crash before
 * that leaves the caller without an answer, and its retry (same reference) finds the outcome.
 */
export class GroupCommitter {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  /** Committed transactions and the operations they carried (metrics, tests). */
  readonly stats = { batches: 0, operations: 0 };

  constructor(
    private readonly db: Knex,
    private readonly opts: GroupCommitOptions,
  ) {}

  submit(op: BatchOp): Promise<BatchOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.flushing) this.flushing = this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.opts.maxBatch);
        await this.commit(batch);
      }
    } finally {
      this.flushing = null;
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    let outcomes: BatchOutcome[];
    try {
      outcomes = await this.apply(batch.map((w) => w.op));
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      // Whatever failed the whole batch (a database error) must not fail its neighbours: each
      // operation gets a transaction of its own, and only the culprit sees the error.
      this.opts.logger.warn(
        { err: (err as Error).message, size: batch.length },
        'billing batch failed; committing its operations one by one',
      );
      for (const w of batch) await this.commit([w]);
      return;
    }
    this.stats.batches += 1;
    this.stats.operations += batch.length;
    this.opts.onBatch?.(batch.length);
    batch.forEach((w, i) => w.resolve(outcomes[i]));
  }

  private apply(ops: BatchOp[]): Promise<BatchOutcome[]> {
    const { users, references, keys } = batchKeys(ops);
    return this.db.transaction(async (trx) => {
      const state = await lockAndRead(trx, references, users, keys);
      const counters = new KeyCounters(state.keys, state.keyCharges, state.period);
      const plan = planBatch(ops, state.balances, state.ledger, counters);
      await writeBatch(trx, plan.balances, plan.entries, counters.changes());
      return plan.outcomes;
    });
  }
}
