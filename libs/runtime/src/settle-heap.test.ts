import { collectAllGarbage, settleHeapAfterStart } from './settle-heap';

describe('settleHeapAfterStart', () => {
  it('collects start-up garbage without --expose-gc and leaves the global scope without gc', () => {
    let garbage: Array<{ n: number; s: string }> | null = [];
    for (let i = 0; i < 200_000; i++) garbage.push({ n: i, s: `item ${i}` });
    const before = process.memoryUsage().heapUsed;
    garbage = null;
    collectAllGarbage();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 5 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('schedules one collection on a timer that does not keep the process alive', () => {
    const timer = settleHeapAfterStart(60_000);
    try {
      expect(timer.hasRef()).toBe(false);
    } finally {
      clearTimeout(timer);
    }
  });
});
