import { AppError } from '@mf/errors';

/** Concurrent event streams one API key may hold open (on one gateway, or on all with a shared store). */
export const DEFAULT_STREAMS_PER_KEY = 10;

export function tooManyStreams(limit: number): AppError {
  return new AppError(429, { error: `Too many open event streams for this API key (limit ${limit})` });
}

/** The per-key stream limit: a slot per open stream, wherever the count lives. */
export interface StreamSlots {
  readonly perKey: number;
  /** Takes a slot for `key` or throws the 429; the returned function frees it (once). */
  acquire(key: string): Promise<() => void>;
  /** Open streams this replica holds slots for (metrics, tests). */
  readonly total: number;
  /** Stops renewing (a shutdown step); slots still held then expire in the store. */
  stop(): Promise<void>;
}

/** Counts the open streams of each key on this replica (one gateway, or a shared store's stand-in). */
export class StreamLimits implements StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly perKey = DEFAULT_STREAMS_PER_KEY) {}

  async acquire(key: string): Promise<() => void> {
    return Promise.resolve(this.take(key));
  }

  /** The synchronous take behind acquire. */
  take(key: string): () => void {
    const n = this.open.get(key) ?? 0;
    if (n >= this.perKey) throw tooManyStreams(this.perKey);
    this.open.set(key, n + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  get total(): number {
    let n = 0;
    for (const v of this.open.values()) n += v;
    return n;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
