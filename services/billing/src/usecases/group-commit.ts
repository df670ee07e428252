import { withPooledConnection, type Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { batchKeys, planBatch, type BatchOp, type BatchOutcome, type NewEntry } from '../domain/batch';
import { KeyCounters } from '../domain/key-limits';
import { beginAndLock, writeAndCommit } from '../repositories/batch.repository';

interface Waiting {
  op: BatchOp;
  /** Arrival order: what a batch keeps, and what requeued operations are sorted back by. */
  seq: number;
  /** Retried after its batch failed: committed in a transaction of its own. */
  alone: boolean;
  resolve: (outcome: BatchOutcome) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most operations in one transaction. */
  maxBatch: number;
  /** Most batches in flight at once (pipelining; at most the pool's size). Default 1: one at a time. */
  maxInFlight?: number;
  logger: Logger;
  /** Called with the size of each committed batch (a metric). */
  onBatch?: (size: number) => void;
  /** Called with the ledger rows each batch committed (metrics of credits charged and refunded). */
  onEntries?: (entries: readonly NewEntry[]) => void;
}

/** Thrown inside a batch's transaction to roll it back: an earlier batch did not commit. */
const SUPERSEDED = new Error('an earlier batch did not commit');

/**
 * Group commit for charges, refunds and job ends (key limits, domain/key-limits.ts): operations that
 * arrive while batches are being committed wait and then go together, in arrival order, in one
 * transaction of two statements (lock_batch, then one write), sent in two round trips (BEGIN goes
 * with lock_batch, COMMIT with the write: batch.repository.ts). Alone, an operation is committed at
 * once, so a single caller waits for nothing.
 *
 * Pipelined: the next batch starts (BEGIN, lock_batch) as soon as the previous one's lock_batch
 * has returned, up to `maxInFlight` batches. By then the previous batch holds every lock it will
 * take (lock_batch takes them all, in one global order: references by hash, users by id, keys by
 * id), so its write and COMMIT wait on nothing of the next one, and the next one queues behind its
 * row locks in Postgres: a hot user's charges are applied in arrival order, each batch reading the
 * balance its predecessor committed. Batches also COMMIT in order: each waits, before its write and
 * COMMIT, for the previous one's; if that one did not commit, it rolls back and its operations are queued again
 * (behind the failed batch's, which are retried one by one), so a failure never reorders anything.
 *
 * Every caller is answered only after its batch has committed: a crash before that leaves the
 * caller without an answer, and its retry (same reference) finds the outcome.
 */
export class GroupCommitter {
  private queue: Waiting[] = [];
  private seq = 0;
  private pumping = false;
  private readonly inFlight = new Set<Promise<boolean>>();
  /** Whether the last started batch committed (or left nothing to redo): what its successor waits for. */
  private tail: Promise<boolean> = Promise.resolve(true);
  /** A batch did not commit: start nothing until every batch in flight has settled. */
  private settleFirst = false;
  private readonly maxInFlight: number;
  /** Committed transactions and the operations they carried (metrics, tests). */
  readonly stats = { batches: 0, operations: 0 };
  /** Most batches that were in flight at once (tests). */
  peakInFlight = 0;

  constructor(
    private readonly db: Knex,
    private readonly opts: GroupCommitOptions,
  ) {
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 1);
  }

  submit(op: BatchOp): Promise<BatchOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, seq: this.seq++, alone: false, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.startBatches().finally(() => {
      this.pumping = false;
      // Operations that arrived (or were requeued) while the loop was finishing.
      if (this.queue.length) this.pump();
    });
  }

  /** Starts batches while operations wait, each once its predecessor holds its locks. */
  private async startBatches(): Promise<void> {
    while (this.queue.length) {
      if (this.settleFirst) {
        await Promise.all(this.inFlight);
        // Everything not committed is back in the queue, in order: start afresh.
        this.settleFirst = false;
        this.tail = Promise.resolve(true);
        continue;
      }
      if (this.inFlight.size >= this.maxInFlight) {
        await Promise.race(this.inFlight);
        continue;
      }
      // An operation retried alone goes by itself; the others go together, up to the next such one.
      const nextAlone = this.queue.findIndex((w) => w.alone);
      const size = nextAlone === 0 ? 1 : nextAlone > 0 ? nextAlone : this.queue.length;
      const batch = this.queue.splice(0, Math.min(size, this.opts.maxBatch));
      let locked!: () => void;
      const lockedNow = new Promise<void>((resolve) => (locked = resolve));
      const done = this.run(batch, this.tail, locked);
      this.tail = done;
      this.inFlight.add(done);
      this.peakInFlight = Math.max(this.peakInFlight, this.inFlight.size);
      void done.then(() => this.inFlight.delete(done));
      await lockedNow;
    }
  }

  /**
   * Commits one batch after `previous` has, and answers its callers. Resolves whether its
   * successors may commit: false when its operations must be committed again first.
   */
  private async run(batch: Waiting[], previous: Promise<boolean>, locked: () => void): Promise<boolean> {
    let outcomes: BatchOutcome[];
    let entries: NewEntry[];
    try {
      ({ outcomes, entries } = await this.apply(
        batch.map((w) => w.op),
        previous,
        locked,
      ));
    } catch (err) {
      locked();
      if (err !== SUPERSEDED && batch.length === 1) {
        // Rolled back, nothing written: its successors may commit once its predecessor has.
        batch[0].reject(err);
        return previous;
      }
      if (err !== SUPERSEDED) {
        // Whatever failed the whole batch (a database error) must not fail its neighbours: each
        // operation gets a transaction of its own, and only the culprit sees the error.
        this.opts.logger.warn(
          { err: (err as Error).message, size: batch.length },
          'billing batch failed; committing its operations one by one',
        );
        for (const w of batch) w.alone = true;
      }
      this.requeue(batch);
      return false;
    }
    this.stats.batches += 1;
    this.stats.operations += batch.length;
    this.opts.onBatch?.(batch.length);
    if (entries.length) this.opts.onEntries?.(entries);
    batch.forEach((w, i) => w.resolve(outcomes[i]));
    return true;
  }

  private requeue(batch: Waiting[]): void {
    this.settleFirst = true;
    this.queue = [...batch, ...this.queue].sort((a, b) => a.seq - b.seq);
    this.pump();
  }

  private apply(
    ops: BatchOp[],
    previous: Promise<boolean>,
    locked: () => void,
  ): Promise<{ outcomes: BatchOutcome[]; entries: NewEntry[] }> {
    const { users, references, keys } = batchKeys(ops);
    return withPooledConnection(this.db, async (conn) => {
      const state = await beginAndLock(conn, references, users, keys).finally(locked);
      const counters = new KeyCounters(state.keys, state.keyCharges, state.period);
      const plan = planBatch(ops, state.balances, state.ledger, counters);
      // The write goes with the COMMIT (one round trip), so it waits for the previous batch's commit.
      if (!(await previous)) throw SUPERSEDED;
      await writeAndCommit(conn, plan.balances, plan.entries, counters.changes());
      return { outcomes: plan.outcomes, entries: plan.entries };
    });
  }
}
