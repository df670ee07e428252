import { KeyedLock } from './keyed-lock';

describe('KeyedLock', () => {
  it('runs tasks of one key one after another, in arrival order', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const first = lock.run('k', async () => {
      log.push('first start');
      await new Promise<void>((r) => (releaseFirst = r));
      log.push('first end');
    });
    const second = lock.run('k', async () => {
      log.push('second');
    });
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['first start']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(log).toEqual(['first start', 'first end', 'second']);
  });

  it('lets tasks of different keys run at the same time', async () => {
    const lock = new KeyedLock();
    let releaseA!: () => void;
    const a = lock.run('a', () => new Promise<void>((r) => (releaseA = r)));
    await expect(lock.run('b', async () => 'b done')).resolves.toBe('b done');
    releaseA();
    await a;
  });

  it('moves on after a failing task and forgets finished keys', async () => {
    const lock = new KeyedLock();
    const failing = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
    expect(lock.size).toBe(0);
  });
});
