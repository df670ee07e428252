import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createStorage, InvalidStorageKeyError, StorageNotFoundError, type Storage } from '../src';
import { readAll, S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, startS3rver, tempDir } from './support';

/** The same behaviour is promised by both drivers, so one suite runs against each. */
interface Backend {
  storage: Storage;
  teardown(): Promise<void>;
}

const backends: Record<'local' | 's3', () => Promise<Backend>> = {
  local: async () => {
    const tmp = await tempDir('local');
    return { storage: createStorage({ driver: 'local', dir: tmp.dir }), teardown: () => tmp.remove() };
  },
  s3: async () => {
    const s3 = await startS3rver();
    const storage = createStorage({
      driver: 's3',
      endpoint: s3.endpoint,
      accessKey: S3RVER_ACCESS_KEY,
      secretKey: S3RVER_SECRET_KEY,
      bucket: 'media-test',
    });
    return { storage, teardown: () => s3.stop() };
  },
};

const md5Etag = (data: Buffer) => `"${createHash('md5').update(data).digest('hex')}"`;

/**
 * Length and md5 of large buffers: toEqual on megabytes compares byte by byte for seconds, blocking
 * the event loop long enough for the server to drop the client's idle keep-alive socket.
 */
const digest = (data: Buffer) => ({ length: data.length, md5: md5Etag(data) });

/** Yields `data` in uneven chunks, as a network or ffmpeg pipe would. */
function chunkedStream(data: Buffer, chunkSize = 7919): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < data.length; offset += chunkSize) yield data.subarray(offset, offset + chunkSize);
    })(),
  );
}

const INVALID_KEYS = [
  '../x',
  '/abs',
  'a//b',
  'a/../b',
  'with space',
  '',
  'trailing/',
  'a/./b',
  'back\\slash',
  'x'.repeat(513),
];

describe.each(['local', 's3'] as const)('%s storage', (driver) => {
  let backend: Backend;
  let storage: Storage;
  let n = 0;
  /** A key no other test uses, so tests never see each other's objects. */
  const freshKey = (name = 'file.bin') => `t${++n}/${name}`;

  beforeAll(async () => {
    backend = await backends[driver]();
    storage = backend.storage;
  });
  afterAll(async () => {
    await backend?.teardown();
  });

  it(`reports its driver as ${driver}`, () => {
    expect(storage.driver).toBe(driver);
  });

  it('passes check() when the backend is usable', async () => {
    await expect(storage.check()).resolves.toBeUndefined();
  });

  describe('put and stat', () => {
    it('returns the size, quoted md5 etag, content type and modification time of what it wrote', async () => {
      const key = freshKey('clip.mp4');
      const data = randomBytes(10_000);
      const before = Date.now();
      const stored = await storage.put(key, data, 'video/mp4');
      expect(stored).toEqual({
        key,
        size: 10_000,
        etag: md5Etag(data),
        contentType: 'video/mp4',
        lastModified: expect.any(Date),
      });
      // Second-granular backends (S3's Last-Modified) round down; allow for it and clock skew.
      expect(Math.abs(stored.lastModified.getTime() - before)).toBeLessThan(5_000);
    });

    it('stat describes the stored object exactly as put did', async () => {
      const key = freshKey('image.png');
      const data = randomBytes(2048);
      const stored = await storage.put(key, data, 'image/png');
      const stat = await storage.stat(key);
      expect(stat).toEqual({ ...stored, lastModified: expect.any(Date) });
      expect(Math.abs(stat!.lastModified.getTime() - stored.lastModified.getTime())).toBeLessThan(1_000);
    });

    it('keeps a content type with parameters verbatim', async () => {
      const key = freshKey('notes.txt');
      await storage.put(key, Buffer.from('hello'), 'text/plain; charset=utf-8');
      expect((await storage.stat(key))?.contentType).toBe('text/plain; charset=utf-8');
    });

    it('stat of an absent key is null', async () => {
      await expect(storage.stat(freshKey())).resolves.toBeNull();
    });

    it('stat of a key that is only a prefix of other keys is null', async () => {
      const key = freshKey('nested');
      await storage.put(`${key}/inner.bin`, Buffer.from('x'), 'application/octet-stream');
      await expect(storage.stat(key)).resolves.toBeNull();
    });

    it('stores an empty object', async () => {
      const key = freshKey();
      const stored = await storage.put(key, Buffer.alloc(0), 'application/octet-stream');
      expect(stored.size).toBe(0);
      expect(stored.etag).toBe(md5Etag(Buffer.alloc(0)));
      expect(await readAll(await storage.get(key))).toEqual(Buffer.alloc(0));
    });

    it('accepts a stream and stores exactly the bytes it yields', async () => {
      const key = freshKey();
      const data = randomBytes(100_000);
      const stored = await storage.put(key, chunkedStream(data), 'application/octet-stream');
      expect(stored.size).toBe(data.length);
      expect(stored.etag).toBe(md5Etag(data));
      expect(digest(await readAll(await storage.get(key)))).toEqual(digest(data));
    });

    it('accepts a stream of string chunks', async () => {
      const key = freshKey('text.txt');
      await storage.put(key, Readable.from(['hello ', 'world']), 'text/plain');
      expect((await readAll(await storage.get(key))).toString()).toBe('hello world');
    });

    it('round-trips a 5 MB object written as a stream, whole and by range', async () => {
      const key = freshKey('big.mp4');
      const data = randomBytes(5 * 1024 * 1024);
      const stored = await storage.put(key, chunkedStream(data, 65_536), 'video/mp4');
      expect(stored.size).toBe(data.length);
      expect(stored.etag).toBe(md5Etag(data));
      expect(digest(await readAll(await storage.get(key)))).toEqual(digest(data));
      const start = 3 * 1024 * 1024 - 17;
      expect(digest(await readAll(await storage.get(key, { start, end: start + 200_000 })))).toEqual(
        digest(data.subarray(start, start + 200_001)),
      );
    });

    it('putFile stores the contents of a local file', async () => {
      const tmp = await tempDir('putfile');
      try {
        const file = path.join(tmp.dir, 'render.mp4');
        const data = randomBytes(300_000);
        await writeFile(file, data);
        const key = freshKey('render.mp4');
        const stored = await storage.putFile(key, file, 'video/mp4');
        expect(stored).toMatchObject({ key, size: data.length, etag: md5Etag(data), contentType: 'video/mp4' });
        expect(digest(await readAll(await storage.get(key)))).toEqual(digest(data));
      } finally {
        await tmp.remove();
      }
    });

    it('putFile of a missing file rejects and stores nothing', async () => {
      const key = freshKey();
      await expect(storage.putFile(key, path.join(__dirname, 'no-such-file.bin'), 'video/mp4')).rejects.toMatchObject({
        code: 'ENOENT',
      });
      await expect(storage.stat(key)).resolves.toBeNull();
    });

    it('overwrites: the second put replaces content, size, etag and content type', async () => {
      const key = freshKey();
      const first = await storage.put(key, Buffer.from('first version'), 'text/plain');
      const second = await storage.put(key, Buffer.from('v2'), 'application/json');
      expect(second.etag).not.toBe(first.etag);
      expect(await storage.stat(key)).toMatchObject({
        size: 2,
        etag: md5Etag(Buffer.from('v2')),
        contentType: 'application/json',
      });
      expect((await readAll(await storage.get(key))).toString()).toBe('v2');
    });

    it('gives the same etag to the same content and a different one to different content', async () => {
      const data = randomBytes(1000);
      const a = await storage.put(freshKey(), data, 'application/octet-stream');
      const b = await storage.put(freshKey(), Buffer.from(data), 'application/octet-stream');
      const changed = Buffer.from(data);
      changed[500] ^= 0xff;
      const c = await storage.put(freshKey(), changed, 'application/octet-stream');
      expect(b.etag).toBe(a.etag);
      expect(c.etag).not.toBe(a.etag);
    });

    it('a put whose source stream fails rejects and leaves the previous object untouched', async () => {
      const key = freshKey();
      const original = Buffer.from('the original');
      await storage.put(key, original, 'text/plain');
      const failing = new PassThrough();
      const put = storage.put(key, failing, 'text/plain');
      failing.write(Buffer.from('half of a new ver'));
      setImmediate(() => failing.destroy(new Error('upstream died')));
      await expect(put).rejects.toThrow('upstream died');
      expect(await storage.stat(key)).toMatchObject({ size: original.length, etag: md5Etag(original) });
      expect(await readAll(await storage.get(key))).toEqual(original);
    });
  });

  describe('get', () => {
    const data = randomBytes(4096);
    let key: string;
    beforeAll(async () => {
      key = freshKey('ranged.bin');
      await storage.put(key, data, 'application/octet-stream');
    });

    it('streams the whole object', async () => {
      const stream = await storage.get(key);
      expect(typeof stream.pipe).toBe('function');
      expect(await readAll(stream)).toEqual(data);
    });

    it.each([
      ['the first byte', 0, 0],
      ['a middle range', 1000, 2999],
      ['the last byte', 4095, 4095],
      ['everything from an offset to the end', 4000, 4095],
    ])('reads %s as an inclusive range', async (_what, start, end) => {
      expect(await readAll(await storage.get(key, { start, end }))).toEqual(data.subarray(start, end + 1));
    });

    it('clamps a range end past the last byte to the last byte', async () => {
      expect(await readAll(await storage.get(key, { start: 4090, end: 999_999 }))).toEqual(data.subarray(4090));
    });

    it('rejects a range that starts past the end with a RangeError', async () => {
      await expect(storage.get(key, { start: 4096, end: 5000 })).rejects.toBeInstanceOf(RangeError);
    });

    it.each([
      ['end before start', { start: 10, end: 9 }],
      ['negative start', { start: -1, end: 9 }],
      ['fractional bound', { start: 0.5, end: 9 }],
    ])('rejects a malformed range (%s) with a RangeError', async (_what, range) => {
      await expect(storage.get(key, range)).rejects.toBeInstanceOf(RangeError);
    });

    it('rejects an absent key with StorageNotFoundError naming the key', async () => {
      const absent = freshKey();
      await expect(storage.get(absent)).rejects.toBeInstanceOf(StorageNotFoundError);
      await expect(storage.get(absent, { start: 0, end: 10 })).rejects.toMatchObject({
        name: 'StorageNotFoundError',
        key: absent,
      });
    });
  });

  describe('delete', () => {
    it('removes the object', async () => {
      const key = freshKey();
      await storage.put(key, Buffer.from('bye'), 'text/plain');
      await storage.delete(key);
      await expect(storage.stat(key)).resolves.toBeNull();
      await expect(storage.get(key)).rejects.toBeInstanceOf(StorageNotFoundError);
    });

    it('succeeds for an absent key', async () => {
      await expect(storage.delete(freshKey())).resolves.toBeUndefined();
    });

    it('leaves sibling keys alone', async () => {
      const dir = freshKey('dir');
      await storage.put(`${dir}/a`, Buffer.from('a'), 'text/plain');
      await storage.put(`${dir}/b`, Buffer.from('b'), 'text/plain');
      await storage.delete(`${dir}/a`);
      expect((await storage.stat(`${dir}/b`))?.size).toBe(1);
    });

    it('a key can be written again after its delete', async () => {
      const key = freshKey('again/deep/file.bin');
      await storage.put(key, Buffer.from('one'), 'text/plain');
      await storage.delete(key);
      await storage.put(key, Buffer.from('two'), 'text/plain');
      expect((await readAll(await storage.get(key))).toString()).toBe('two');
    });
  });

  describe('deletePrefix', () => {
    it('deletes every object under a job prefix, nested ones too, and nothing else', async () => {
      const root = freshKey('jobs');
      const doomed = [`${root}/job_a/video.mp4`, `${root}/job_a/thumb.jpg`, `${root}/job_a/frames/0001.png`];
      const kept = [`${root}/job_ab/video.mp4`, `${root}/job_b/video.mp4`, `${root}/job_a.mp4`];
      for (const key of [...doomed, ...kept]) await storage.put(key, Buffer.from(key), 'application/octet-stream');

      await storage.deletePrefix(`${root}/job_a/`);

      for (const key of doomed) await expect(storage.stat(key)).resolves.toBeNull();
      for (const key of kept) expect((await storage.stat(key))?.size).toBe(Buffer.byteLength(key));
    });

    it('matches a prefix that ends mid-name, as S3 does', async () => {
      const root = freshKey('p');
      for (const key of [`${root}/job_1/x`, `${root}/job_12/y`, `${root}/other/z`])
        await storage.put(key, Buffer.from('.'), 'text/plain');
      await storage.deletePrefix(`${root}/job_1`);
      await expect(storage.stat(`${root}/job_1/x`)).resolves.toBeNull();
      await expect(storage.stat(`${root}/job_12/y`)).resolves.toBeNull();
      await expect(storage.stat(`${root}/other/z`)).resolves.not.toBeNull();
    });

    it('succeeds when nothing matches', async () => {
      await expect(storage.deletePrefix(`${freshKey('nothing')}/`)).resolves.toBeUndefined();
    });

    it.each(['', '/', '/abs/', '../', 'a//', 'a/../'])('refuses the prefix %j', async (prefix) => {
      await expect(storage.deletePrefix(prefix)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    });
  });

  describe('key validation', () => {
    it.each(INVALID_KEYS)('rejects the key %j in every method', async (key) => {
      const file = path.join(__dirname, 'storage.test.ts');
      await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.putFile(key, file, 'text/plain')).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    });

    it('rejects a content type that could inject a header', async () => {
      await expect(storage.put(freshKey(), Buffer.from('x'), 'text/plain\r\nSet-Cookie: a=b')).rejects.toThrow(
        /content type/i,
      );
    });
  });
});
