import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { insertUsage, type UsageRecord } from '../repositories/usage.repository';
import { touchKeys } from '../repositories/api-keys.repository';

/**
 * Buffers usage records and last-used stamps and writes them in batches, off the request path:
 * a request never waits for its own usage row. Records still buffered are written on stop().
 */
export class UsageRecorder {
  private buffer: UsageRecord[] = [];
  private touched = new Set<number>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    flushMs: number,
    private readonly maxBuffer = 10_000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(row: UsageRecord): void {
    // Bounded: when the database is down for long, drop the oldest rather than grow without limit.
    if (this.buffer.length >= this.maxBuffer) this.buffer.shift();
    this.buffer.push(row);
    this.touched.add(row.api_key_id);
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
