import { AbortedError, Semaphore, settleAll } from './limiter';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('Semaphore', () => {
  it('runs at most its size at once, across callers', async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const task = () =>
      slots.use(new AbortController().signal, async () => {
        peak = Math.max(peak, ++running);
        await tick();
        running--;
      });
    await Promise.all([task(), task(), task(), task(), task()]);
    expect(peak).toBe(2);
  });

  it('drops a waiter whose signal fires, and gives its turn to the next', async () => {
    const slots = new Semaphore(1);
    let release!: () => void;
    const holder = slots.use(new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    const giveUp = new AbortController();
    const waiter = slots.use(giveUp.signal, async () => 'ran');
    const next = slots.use(new AbortController().signal, async () => 'next ran');
    giveUp.abort();
    await expect(waiter).rejects.toBeInstanceOf(AbortedError);
    release();
    await holder;
    await expect(next).resolves.toBe('next ran');
  });
});

describe('settleAll', () => {
  it('returns results in item order', async () => {
    const out = await settleAll([30, 10, 20], 3, new AbortController().signal, async (ms) => {
      await tick(ms);
      return ms * 2;
    });
    expect(out).toEqual([60, 20, 40]);
  });

  it('on the first failure stops the others, waits until they have settled, then rejects with that failure', async () => {
    const settled: number[] = [];
    const started: number[] = [];
    const boom = new Error('boom');
    const outcome = settleAll([0, 1, 2, 3, 4], 2, new AbortController().signal, async (i, _n, signal) => {
      started.push(i);
      if (i === 1) throw boom;
      // A long task that only ends when told to stop, like a killed ffmpeg.
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => setTimeout(resolve, 20), { once: true }),
      );
      settled.push(i);
      throw new AbortedError();
    });
    await expect(outcome).rejects.toBe(boom);
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([0]);
  });

  it('rejects when its caller aborts', async () => {
    const parent = new AbortController();
    const outcome = settleAll(
      [1],
      1,
      parent.signal,
      (_i, _n, signal) =>
        new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new AbortedError()))),
    );
    parent.abort();
    await expect(outcome).rejects.toBeInstanceOf(AbortedError);
  });
});
