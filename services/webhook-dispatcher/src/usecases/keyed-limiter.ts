/** Refused by KeyedLimiter: no slot of the key came free before the task had to start. */
export class NoSlotInTime extends Error {
  constructor(key: string) {
    super(`no slot of ${key} came free in time`);
    this.name = 'NoSlotInTime';
  }
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout | null;
}

/**
 * At most `cap` tasks of one key at once; tasks of other keys never wait for them. A task that
 * finds its key full waits, first come first served, until a slot frees; one that cannot start by
 * its `startBy` (epoch ms) is refused (NoSlotInTime) without having run.
 */
export class KeyedLimiter {
  private readonly keys = new Map<string, { running: number; waiting: Waiter[] }>();

  constructor(private readonly cap: number) {}

  async run<T>(key: string, startBy: number, task: () => Promise<T>): Promise<T> {
    await this.acquire(key, startBy);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  /** Tasks of `key` running and waiting (tests, metrics). */
  load(key: string): { running: number; waiting: number } {
    const k = this.keys.get(key);
    return { running: k?.running ?? 0, waiting: k?.waiting.length ?? 0 };
  }

  private acquire(key: string, startBy: number): Promise<void> {
    const wait = startBy - Date.now();
    if (wait <= 0) return Promise.reject(new NoSlotInTime(key));
    let k = this.keys.get(key);
    if (!k) this.keys.set(key, (k = { running: 0, waiting: [] }));
    if (k.running < this.cap) {
      k.running++;
      return Promise.resolve();
    }
    const entry = k;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve, timer: null };
      if (Number.isFinite(wait))
        waiter.timer = setTimeout(() => {
          entry.waiting.splice(entry.waiting.indexOf(waiter), 1);
          reject(new NoSlotInTime(key));
        }, wait);
      entry.waiting.push(waiter);
    });
  }

  private release(key: string): void {
    const k = this.keys.get(key);
    if (!k) return;
    const next = k.waiting.shift();
    if (next) {
      // The slot passes straight to the next waiter: the count stays.
      if (next.timer) clearTimeout(next.timer);
      next.start();
      return;
    }
    k.running--;
    this.forgetIfIdle(key);
  }

  private forgetIfIdle(key: string): void {
    const k = this.keys.get(key);
    if (k && k.running === 0 && k.waiting.length === 0) this.keys.delete(key);
  }
}
