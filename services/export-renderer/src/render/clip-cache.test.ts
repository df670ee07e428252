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
  const entry = await cache.store(key(name), file);
  entry.release();
  const then = new Date(Date.now() - ageSec * 1000);
  await utimes(entry.path, then, then);
}

describe('ClipCache', () => {
  it('finds a stored clip by key and misses an unknown one', async () => {
    const cache = new ClipCache(dir, 1000, silentLogger());
    await storeAged(cache, 'a', 0);
    const hit = await cache.lookup(key('a'));
    expect(hit && existsSync(hit.path)).toBe(true);
    expect(await cache.lookup(key('b'))).toBeNull();
  });

  it('evicts the least recently used clips above its size, a hit counting as a use', async () => {
    const cache = new ClipCache(dir, 250, silentLogger());
    await storeAged(cache, 'old', 300);
    await storeAged(cache, 'middle', 200);
    await storeAged(cache, 'new', 100);
    (await cache.lookup(key('old')))!.release();

    expect(await cache.evict()).toEqual({ removed: 1, bytes: 200 });
    expect((await readdir(dir)).sort()).toEqual([`${key('new')}.mov`, `${key('old')}.mov`].sort());
  });

  it('never evicts a clip an export is still reading', async () => {
    const cache = new ClipCache(dir, 0, silentLogger());
    await storeAged(cache, 'a', 100);
    await storeAged(cache, 'b', 50);
    const reading = (await cache.lookup(key('a')))!;
    await cache.evict();
    expect(await readdir(dir)).toEqual([`${key('a')}.mov`]);
    reading.release();
    await cache.evict();
    expect(await readdir(dir)).toEqual([]);
  });
});
