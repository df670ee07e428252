import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { insertUsage, type UsageRecord } from '../repositories/usage.repository';
import { touchKeys } from '../repositories/api-keys.repository';

/** Buffered rows that trigger a write before the next tick (a burst is not held for the full interval). */
export const USAGE_BATCH_ROWS = 1000;

/**
 * Buffers usage records and last-used stamps and writes them in batches, off the request path:
 * a request never waits for its own usage row. Each batch is one multi-row insert and the keys'
 * last_used_at stamps, in one transaction, every `flushMs` (sooner once USAGE_BATCH_ROWS wait).
 * Records still buffered are written on stop() (graceful shutdown, after the HTTP server has
 * closed); a crash loses what was buffered, at most `flushMs` worth (docs/decisions.md).
 */
export class UsageRecorder {
  private buffer: UsageRecord[] = [];
  private touched = new Set<number>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private earlyFlush = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    flushMs: number,
    private readonly maxBuffer = 10_000,
    private readonly batchRows = USAGE_BATCH_ROWS,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(row: UsageRecord): void {
    // Bounded: when the database is down for long, drop the oldest rather than grow without limit.
    if (this.buffer.length >= this.maxBuffer) this.buffer.shift();
    this.buffer.push(row);
    this.touched.add(row.api_key_id);
    if (this.buffer.length >= this.batchRows && !this.earlyFlush) {
      this.earlyFlush = true;
      void this.flush().finally(() => (this.earlyFlush = false));
    }
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const rows = this.buffer;
      const keys = [...this.touched];
      if (!rows.length && !keys.length) return;
      this.buffer = [];
      this.touched = new Set();
      try {
        // One transaction: a reader that sees a request's usage row also sees its key stamped as used.
        await this.db.transaction(async (trx) => {
          await insertUsage(trx, rows);
          await touchKeys(trx, keys, new Date());
        });
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message, rows: rows.length },
          'could not write usage records; will retry',
        );
        this.buffer = rows.concat(this.buffer).slice(-this.maxBuffer);
        keys.forEach((k) => this.touched.add(k));
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
