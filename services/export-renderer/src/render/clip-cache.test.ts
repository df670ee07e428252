import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '@mf/testing';
import { ClipCache } from './clip-cache';

const key = (name: string) => createHash('sha256').update(name).digest('hex');

let dir: string;
let scratch: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mf-clip-cache-'));
  scratch = await mkdtemp(path.join(tmpdir(), 'mf-clip-scratch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

/** Stores 100 bytes under `name`, last used `ageSec` ago. */
async function storeAged(cache: ClipCache, name: string, ageSec: number): Promise<void> {
  const file = path.join(scratch, name);
  await writeFile(file, Buffer.alloc(100));
  const entry = await cache.store(key(name), '.mov', file);
  entry.release();
  const then = new Date(Date.now() - ageSec * 1000);
  await utimes(entry.path, then, then);
}

describe('ClipCache', () => {
  it('finds a stored piece by key and kind, and misses an unknown key or another kind', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    await storeAged(cache, 'a', 0);
    expect(await cache.lookup(key('a'), '.wav')).toBeNull();
    expect(await cache.lookup(key('a'), '.m4a')).toBeNull();
    expect(await cache.lookup(key('a'), '.mov')).not.toBeNull();
  });

  it('finds a stored clip by key and misses an unknown one', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    await storeAged(cache, 'a', 0);
    const hit = await cache.lookup(key('a'), '.mov');
    expect(hit && existsSync(hit.path)).toBe(true);
    expect(await cache.lookup(key('b'), '.mov')).toBeNull();
  });

  it('evicts the least recently used clips above its size, a hit counting as a use', async () => {
    const cache = new ClipCache(dir, 250, silentLogger());
    await storeAged(cache, 'old', 300);
    await storeAged(cache, 'middle', 200);
    await storeAged(cache, 'new', 100);
    (await cache.lookup(key('old'), '.mov'))!.release();

    expect(await cache.evict()).toEqual({ removed: 1, bytes: 200 });
    expect((await readdir(dir)).sort()).toEqual([`${key('new')}.mov`, `${key('old')}.mov`].sort());
  });

  it('never evicts a clip an export is still reading', async () => {
    const cache = new ClipCache(dir, 0, silentLogger());
    await storeAged(cache, 'a', 100);
    await storeAged(cache, 'b', 50);
    const reading = (await cache.lookup(key('a'), '.mov'))!;
    await cache.evict();
    expect(await readdir(dir)).toEqual([`${key('a')}.mov`]);
    reading.release();
    await cache.evict();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('ClipCache.obtain', () => {
  const never = new AbortController().signal;
  /** A maker that writes `file` once released, counting its runs. */
  function slowMaker(file: string) {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let began!: () => void;
    const state = {
      runs: 0,
      open,
      /** Resolves once making has begun (the cache has registered it by then). */
      started: new Promise<void>((r) => (began = r)),
      make: async () => {
        state.runs++;
        began();
        await gate;
        await writeFile(file, 'made');
      },
    };
    return state;
  }

  it('makes a missing piece once when two exports ask for it together, and hands both the stored file', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    const first = slowMaker(path.join(scratch, 'one'));
    const second = slowMaker(path.join(scratch, 'two'));
    const a = cache.obtain(key('p'), '.mov', path.join(scratch, 'one'), first.make, never);
    const b = cache.obtain(key('p'), '.mov', path.join(scratch, 'two'), second.make, never);
    await new Promise((r) => setTimeout(r, 20));
    first.open();
    const [ra, rb] = await Promise.all([a, b]);
    expect([first.runs, second.runs]).toEqual([1, 0]);
    expect([ra.made, rb.made]).toEqual([true, false]);
    expect(ra.entry.path).toBe(rb.entry.path);
    expect(ra.entry.path.startsWith(dir)).toBe(true);
  });

  it('makes the piece itself when the export it waited for failed', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    const failing = cache.obtain(
      key('q'),
      '.wav',
      path.join(scratch, 'x'),
      () => Promise.reject(new Error('decode failed')),
      never,
    );
    const waiting = cache.obtain(
      key('q'),
      '.wav',
      path.join(scratch, 'y'),
      () => writeFile(path.join(scratch, 'y'), 'ok'),
      never,
    );
    await expect(failing).rejects.toThrow('decode failed');
    await expect(waiting).resolves.toMatchObject({ made: true });
  });

  it('stops waiting for another export when its own signal fires', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    const maker = slowMaker(path.join(scratch, 'slow'));
    const slow = cache.obtain(key('r'), '.m4a', path.join(scratch, 'slow'), maker.make, never);
    await maker.started; // the other export is making it: this one waits
    const stop = new AbortController();
    const waiting = cache.obtain(key('r'), '.m4a', path.join(scratch, 'other'), () => Promise.resolve(), stop.signal);
    stop.abort();
    await expect(waiting).rejects.toThrow('aborted');
    maker.open();
    await expect(slow).resolves.toMatchObject({ made: true });
  });

  it('uses the piece from where it was made when the cache cannot be written', async () => {
    const blocked = path.join(scratch, 'not-a-dir');
    await writeFile(blocked, 'x');
    const cache = new ClipCache(blocked, 1000, silentLogger());
    const file = path.join(scratch, 'piece');
    const got = await cache.obtain(key('s'), '.mov', file, () => writeFile(file, 'ok'), never);
    expect(got).toMatchObject({ made: true, entry: { path: file } });
  });
});
