import { AsyncLocalStorage } from 'node:async_hooks';
import { createLogger } from '@mf/logger';
import { periodic, type PeriodicTask } from './periodic';

/** A task whose runs the test counts and awaits one by one. */
function counted(): { fn: () => Promise<number>; runs: () => number; nextRun: () => Promise<void> } {
  let runs = 0;
  let waiter: (() => void) | null = null;
  return {
    fn: () => {
      runs += 1;
      waiter?.();
      waiter = null;
      return Promise.resolve(0);
    },
    runs: () => runs,
    nextRun: () => new Promise<void>((resolve) => (waiter = resolve)),
  };
}

describe('periodic', () => {
  let task: PeriodicTask | undefined;
  afterEach(async () => {
    await task?.stop();
  });

  it('runs once at start, then again on a kick without waiting for its (hour-long) interval', async () => {
    const c = counted();
    const first = c.nextRun();
    task = periodic('test', 3_600_000, c.fn, createLogger('periodic-test', 'silent'));
    await first;
    const second = c.nextRun();
    task.kick();
    await second;
    expect(c.runs()).toBe(2);
  });

  it('runs once more after the run in progress when kicked during it', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    const started: Array<() => void> = [];
    const fn = (): Promise<number> =>
      new Promise<number>((resolve) => {
        runs += 1;
        started.shift()?.();
        release = () => resolve(0);
      });
    const firstStarted = new Promise<void>((r) => started.push(r));
    task = periodic('test', 3_600_000, fn, createLogger('periodic-test', 'silent'));
    await firstStarted;
    const secondStarted = new Promise<void>((r) => started.push(r));
    task.kick();
    task.kick();
    expect(runs).toBe(1);
    release();
    await secondStarted;
    release();
    expect(runs).toBe(2);
  });

  it("runs in the context it was made in, not in the one of a kick (a request's trace)", async () => {
    const requestContext = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    let waiter: (() => void) | null = null;
    const fn = (): Promise<number> => {
      seen.push(requestContext.getStore());
      waiter?.();
      return Promise.resolve(0);
    };
    const next = () => new Promise<void>((resolve) => (waiter = resolve));
    let first = next();
    task = periodic('test', 3_600_000, fn, createLogger('periodic-test', 'silent'));
    await first;
    // The first run's bookkeeping settles in microtasks: after this turn the task is idle, waiting.
    await new Promise((r) => setImmediate(r));
    first = next();
    requestContext.run('request 1', () => task!.kick());
    await first;
    expect(seen).toEqual([undefined, undefined]);
  });
});
