import { QueueAbortedError, RenderQueue } from './render-queue';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('RenderQueue', () => {
  it('runs at most limit tasks at once, the rest in arrival order', async () => {
    const queue = new RenderQueue(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let active = 0;
    let maxActive = 0;
    const runs = gates.map((gate, i) =>
      queue.run(async () => {
        started.push(i);
        active++;
        maxActive = Math.max(maxActive, active);
        await gate.promise;
        active--;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(queue.queued).toBe(2);

    gates[1].resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);

    gates.forEach((g) => g.resolve());
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(maxActive).toBe(2);
    expect(queue.active).toBe(0);
  });

  it('drops a waiting task whose signal aborts, without running it', async () => {
    const queue = new RenderQueue(1);
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = queue.run(async () => {
      ran = true;
    }, controller.signal);

    controller.abort();
    await expect(second).rejects.toBeInstanceOf(QueueAbortedError);
    expect(queue.queued).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
  });

  it('frees the slot when a task fails', async () => {
    const queue = new RenderQueue(1);
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run(async () => 'next')).resolves.toBe('next');
  });
});
