/**
 * Runs tasks that share a key one after another, tasks with different keys at once. Within one
 * process this makes "check whether it was delivered, then deliver" atomic per event, so two
 * copies of one event consumed at the same moment (an outbox republish) are posted once.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // Nobody queued behind us: forget the key so the map does not grow with every event.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (tests). */
  get size(): number {
    return this.tails.size;
  }
}
