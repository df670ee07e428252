/** Rejection of work given up because its signal fired (the export timed out or a sibling failed). */
export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/**
 * At most `size` tasks at once, shared by every export of the process: two exports running
 * together split the cores rather than doubling the load. A waiter whose signal fires leaves the
 * queue.
 */
export class Semaphore {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!(size >= 1)) throw new RangeError('size must be at least 1');
    this.free = size;
  }

  async use<R>(signal: AbortSignal, task: () => Promise<R>): Promise<R> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new AbortedError());
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new AbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next)
      next(); // the slot passes straight to the next waiter
    else this.free++;
  }
}

/**
 * Runs `task` over every item, at most `limit` at once, and resolves with the results in order.
 * On the first failure the others are told to stop (their signal fires) and nothing new starts;
 * it still waits until every started task has settled (so no ffmpeg outlives the call), then
 * rejects with that first failure.
 */
export async function settleAll<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  task: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', onParentAbort, { once: true });

  const results: R[] = new Array<R>(items.length);
  let failure: { error: unknown } | null = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !controller.signal.aborted) {
      const i = next++;
      try {
        results[i] = await task(items[i], i, controller.signal);
      } catch (error) {
        failure ??= { error };
        controller.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  } finally {
    signal.removeEventListener('abort', onParentAbort);
  }
  if (failure) throw (failure as { error: unknown }).error;
  if (signal.aborted) throw new AbortedError();
  return results;
}
