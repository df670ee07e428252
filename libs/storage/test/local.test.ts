import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createStorage, type Storage } from '../src';
import { readAll, tempDir } from './support';

/** What only the local driver does: its files on disk, atomic writes, sidecars. */
describe('local storage on disk', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let dir: string;
  let storage: Storage;
  const md5Etag = (data: Buffer | string) => `"${createHash('md5').update(data).digest('hex')}"`;

  beforeEach(async () => {
    tmp = await tempDir('local-disk');
    dir = path.join(tmp.dir, 'media');
    storage = createStorage({ driver: 'local', dir });
  });
  afterEach(async () => {
    await tmp.remove();
  });

  it('keeps each object as a plain file under <dir>/objects/<key>', async () => {
    await storage.put('jobs/job_1/video.mp4', Buffer.from('mp4 bytes'), 'video/mp4');
    expect(await readFile(path.join(dir, 'objects', 'jobs', 'job_1', 'video.mp4'), 'utf8')).toBe('mp4 bytes');
  });

  it('never creates anything outside its directory for a traversal key', async () => {
    await expect(storage.put('../escaped', Buffer.from('x'), 'text/plain')).rejects.toThrow(/Invalid storage key/);
    await expect(storage.put('objects/../../escaped', Buffer.from('x'), 'text/plain')).rejects.toThrow(
      /Invalid storage key/,
    );
    expect(existsSync(path.join(tmp.dir, 'escaped'))).toBe(false);
    expect(existsSync(path.join(dir, 'escaped'))).toBe(false);
  });

  it('leaves no temporary files behind, after a successful write or a failed one', async () => {
    await storage.put('a/ok.bin', randomBytes(1000), 'application/octet-stream');
    const failing = new PassThrough();
    const put = storage.put('a/failed.bin', failing, 'application/octet-stream');
    failing.write(randomBytes(100));
    setImmediate(() => failing.destroy(new Error('source failed')));
    await expect(put).rejects.toThrow('source failed');
    expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
    await expect(storage.stat('a/failed.bin')).resolves.toBeNull();
  });

  it('writes again after its tmp/ directory was removed behind its back', async () => {
    await storage.put('a/first.bin', Buffer.from('one'), 'application/octet-stream');
    await rm(path.join(dir, 'tmp'), { recursive: true });
    await storage.put('a/second.bin', Buffer.from('two'), 'application/octet-stream');
    expect(await readFile(path.join(dir, 'objects', 'a', 'second.bin'), 'utf8')).toBe('two');
  });

  it('stores nothing when the body fails with a file error of its own (ENOENT), after tmp/ was removed', async () => {
    await storage.put('a/first.bin', Buffer.from('one'), 'application/octet-stream');
    await rm(path.join(dir, 'tmp'), { recursive: true });
    const body = new PassThrough();
    body.write('part of it');
    setImmediate(() => body.destroy(Object.assign(new Error('source file vanished'), { code: 'ENOENT' })));
    await expect(storage.put('a/broken.bin', body, 'application/octet-stream')).rejects.toThrow(/vanished/);
    expect(await storage.stat('a/broken.bin')).toBeNull();
    expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
  });

  it('a reader that already has a stream keeps reading the old content while the key is overwritten', async () => {
    const old = randomBytes(200_000);
    await storage.put('a/video.mp4', old, 'video/mp4');
    const stream = await storage.get('a/video.mp4');
    await storage.put('a/video.mp4', randomBytes(50_000), 'video/mp4');
    expect(md5Etag(await readAll(stream))).toBe(md5Etag(old));
  });

  it('concurrent writes to one key end with an etag and size that match the surviving content', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => randomBytes(10_000 + i * 1000));
    await Promise.all(bodies.map((body) => storage.put('a/race.bin', body, 'application/octet-stream')));
    const content = await readAll(await storage.get('a/race.bin'));
    expect(bodies.some((b) => b.equals(content))).toBe(true);
    expect(await storage.stat('a/race.bin')).toMatchObject({ size: content.length, etag: md5Etag(content) });
  });

  it('recomputes the etag when the content changed behind its sidecar, keeping the recorded content type', async () => {
    await storage.put('a/clip.mp4', Buffer.from('original'), 'video/mp4');
    await writeFile(path.join(dir, 'objects', 'a', 'clip.mp4'), 'replaced by hand');
    expect(await storage.stat('a/clip.mp4')).toMatchObject({
      size: 16,
      etag: md5Etag('replaced by hand'),
      contentType: 'video/mp4',
    });
  });

  it('describes a file that has no sidecar as application/octet-stream with its md5 etag', async () => {
    await mkdir(path.join(dir, 'objects', 'manual'), { recursive: true });
    await writeFile(path.join(dir, 'objects', 'manual', 'file.bin'), 'dropped in');
    expect(await storage.stat('manual/file.bin')).toMatchObject({
      size: 10,
      etag: md5Etag('dropped in'),
      contentType: 'application/octet-stream',
    });
  });

  it('records in the sidecar the size, mtime and inode of the content file it was written with', async () => {
    const data = randomBytes(70_000);
    const stored = await storage.put('jobs/job_s/out.png', data, 'image/png');
    const content = await stat(path.join(dir, 'objects', 'jobs', 'job_s', 'out.png'));
    const sidecar = JSON.parse(await readFile(path.join(dir, 'meta', 'jobs', 'job_s', 'out.png.json'), 'utf8'));
    expect(sidecar).toEqual({
      etag: md5Etag(data),
      contentType: 'image/png',
      size: content.size,
      mtimeMs: content.mtimeMs,
      ino: content.ino,
    });
    expect(stored.etag).toBe(md5Etag(data));
  });

  it('writes into a directory that a concurrent delete keeps pruning', async () => {
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await storage.put(`jobs/job_r/w${i}`, Buffer.from(`w${i}`), 'text/plain');
        await storage.delete(`jobs/job_r/w${i}`);
      }),
    );
    await storage.put('jobs/job_r/last', Buffer.from('last'), 'text/plain');
    expect((await storage.stat('jobs/job_r/last'))?.etag).toBe(md5Etag('last'));
    expect(await readdir(path.join(dir, 'objects', 'jobs', 'job_r'))).toEqual(['last']);
  });

  it('removes the directories a delete leaves empty', async () => {
    await storage.put('jobs/job_1/a.mp4', Buffer.from('a'), 'video/mp4');
    await storage.put('jobs/job_1/frames/1.png', Buffer.from('1'), 'image/png');
    await storage.put('jobs/job_2/b.mp4', Buffer.from('b'), 'video/mp4');
    await storage.deletePrefix('jobs/job_1/');
    expect(await readdir(path.join(dir, 'objects', 'jobs'))).toEqual(['job_2']);
    expect(await readdir(path.join(dir, 'meta', 'jobs'))).toEqual(['job_2']);
  });

  it('check() creates its directory and passes', async () => {
    await storage.check();
    expect(existsSync(path.join(dir, 'objects'))).toBe(true);
  });

  it('check() fails when the directory cannot be created', async () => {
    const file = path.join(tmp.dir, 'a-file');
    await writeFile(file, 'not a directory');
    await expect(createStorage({ driver: 'local', dir: path.join(file, 'media') }).check()).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
  });
});
