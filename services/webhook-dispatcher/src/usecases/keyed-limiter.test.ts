import { KeyedLimiter, NoSlotInTime } from './keyed-limiter';

/** A task that runs until the test lets it go. */
function held(): { task: () => Promise<string>; started: () => boolean; release: () => void } {
  let started = false;
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    task: async () => {
      started = true;
      await done;
      return 'done';
    },
    started: () => started,
    release,
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const FAR = Date.now() + 60_000;

describe('KeyedLimiter', () => {
  it('runs at most cap tasks of a key at once and starts the next in arrival order as one ends', async () => {
    const limiter = new KeyedLimiter(2);
    const tasks = [held(), held(), held(), held()];
    const runs = tasks.map((t) => limiter.run('a', FAR, t.task));
    await turn();
    expect(tasks.map((t) => t.started())).toEqual([true, true, false, false]);
    expect(limiter.load('a')).toEqual({ running: 2, waiting: 2 });
    tasks[1].release();
    await runs[1];
    await turn();
    expect(tasks.map((t) => t.started())).toEqual([true, true, true, false]);
    for (const t of tasks) t.release();
    await expect(Promise.all(runs)).resolves.toEqual(['done', 'done', 'done', 'done']);
    expect(limiter.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('never makes a key wait for another key', async () => {
    const limiter = new KeyedLimiter(1);
    const hog = held();
    const hogging = limiter.run('slow', FAR, hog.task);
    await expect(limiter.run('other', FAR, async () => 'ran')).resolves.toBe('ran');
    hog.release();
    await hogging;
  });

  it('refuses, without running it, a task that cannot start by its time, and keeps the others in order', async () => {
    const limiter = new KeyedLimiter(1);
    const first = held();
    const running = limiter.run('a', FAR, first.task);
    let ranLate = false;
    const late = limiter.run('a', Date.now() + 30, async () => {
      ranLate = true;
    });
    const patient = held();
    const waiting = limiter.run('a', FAR, patient.task);
    await expect(late).rejects.toBeInstanceOf(NoSlotInTime);
    expect(limiter.load('a')).toEqual({ running: 1, waiting: 1 });
    first.release();
    await running;
    await turn();
    expect(patient.started()).toBe(true);
    patient.release();
    await waiting;
    expect(ranLate).toBe(false);
    // Past its time already: refused at once, though a slot is free.
    await expect(limiter.run('a', Date.now() - 1, async () => 'x')).rejects.toBeInstanceOf(NoSlotInTime);
    expect(limiter.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot of a task that failed', async () => {
    const limiter = new KeyedLimiter(1);
    await expect(
      limiter.run('a', FAR, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(limiter.run('a', FAR, async () => 'next')).resolves.toBe('next');
    expect(limiter.load('a')).toEqual({ running: 0, waiting: 0 });
  });
});
