import { AppError } from '@mf/errors';

/** Concurrent event streams one API key may hold open on one gateway. */
export const DEFAULT_STREAMS_PER_KEY = 10;

export function tooManyStreams(limit: number): AppError {
  return new AppError(429, { error: `Too many open event streams for this API key (limit ${limit})` });
}

/** Counts the open streams of each key on this replica; over the limit an open is refused with 429. */
export class StreamLimits {
  private readonly open = new Map<string, number>();

  constructor(readonly perKey = DEFAULT_STREAMS_PER_KEY) {}

  /** Takes a slot for `key` or throws the 429; the returned function frees it (once). */
  acquire(key: string): () => void {
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

  /** Open streams in total (metrics, tests). */
  get total(): number {
    let n = 0;
    for (const v of this.open.values()) n += v;
    return n;
  }
}
