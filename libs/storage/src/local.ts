import { createHash, randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { assertContentType, assertValidKey, assertValidPrefix, assertValidRange } from './keys';
import {
  errorCode,
  keysUnder,
  MISSING,
  removeAndPrune,
  renameInto,
  syncDirectory,
  writeDurably,
  writeUnsynced,
} from './local-fs';
import { chunksOf } from './streams';
import { StorageNotFoundError, type ByteRange, type Storage, type StoredObject } from './types';

/**
 * What a sidecar records. size, mtimeMs and ino identify the content file it was written with: a
 * reader that catches an overwrite between the two renames (new content, old sidecar) sees the
 * mismatch and recomputes rather than serving a stale ETag.
 */
interface Sidecar {
  etag: string;
  contentType: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/**
 * Files on local disk. Layout under `dir`:
 *   objects/<key>        the content, a plain file
 *   meta/<key>.json      its sidecar (content type, etag)
 *   tmp/                 writes in progress
 * The sidecars live in their own tree, not beside the content as `<file>.meta.json`, so that no key
 * (say 'a.mp4.meta.json') can ever collide with another key's sidecar. tmp/ sits on the same
 * filesystem as objects/, so the final rename is atomic, and a crashed write leaves its garbage
 * there rather than among the objects.
 *
 * A key cannot be both an object and a "directory" of other keys here ('a' and 'a/b'): writing the
 * second fails. Keys the services build (jobs/<id>/<file>) never do that.
 */
export class LocalStorage implements Storage {
  readonly driver = 'local' as const;
  private readonly root: string;
  private readonly objectsDir: string;
  private readonly metaDir: string;
  private readonly tmpDir: string;
  /** tmp/ was created by this instance (put skips the mkdir after the first write). */
  private tmpReady = false;

  constructor(dir: string) {
    this.root = path.resolve(dir);
    this.objectsDir = path.join(this.root, 'objects');
    this.metaDir = path.join(this.root, 'meta');
    this.tmpDir = path.join(this.root, 'tmp');
  }

  async put(key: string, body: Buffer | NodeJS.ReadableStream, contentType: string): Promise<StoredObject> {
    assertValidKey(key);
    assertContentType(contentType);
    const chunks = chunksOf(body); // before any await: see chunksOf
    const tmpFile = path.join(this.tmpDir, `${randomUUID()}.part`);
    const tmpMeta = `${tmpFile}.json`;
    let moved = false;
    try {
      const { handle, etag, stats } = await this.writeTemporary(tmpFile, chunks);
      const objectFile = this.objectPath(key);
      const metaFile = this.metaPath(key);
      const sidecar: Sidecar = { etag, contentType, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
      // Both files are on disk before either rename (the fsyncs run side by side, with the parent
      // directories' creation: each is a round trip to the disk, and none depends on another).
      try {
        await Promise.all([
          handle.sync(),
          writeDurably(tmpMeta, Buffer.from(JSON.stringify(sidecar))),
          mkdir(path.dirname(objectFile), { recursive: true }),
          mkdir(path.dirname(metaFile), { recursive: true }),
        ]);
      } finally {
        await handle.close();
      }
      // Content first: a reader between the two renames sees a sidecar that does not match and
      // recomputes; the other order would briefly pair the old content with the new ETag. After a
      // crash before the directory fsyncs, either rename may be lost: a lost content rename leaves
      // a sidecar that does not match (recomputed), a lost sidecar rename an old or no sidecar
      // (recomputed as well). put returns only once both are durable.
      await renameInto(tmpFile, objectFile);
      await renameInto(tmpMeta, metaFile);
      moved = true;
      await Promise.all([syncDirectory(path.dirname(objectFile)), syncDirectory(path.dirname(metaFile))]);
      return { key, size: stats.size, etag, contentType, lastModified: new Date(stats.mtimeMs) };
    } finally {
      // Both renamed: nothing is left in tmp/ to remove (one step less on every write).
      if (!moved) await Promise.all([rm(tmpFile, { force: true }), rm(tmpMeta, { force: true })]);
    }
  }

  /** writeUnsynced into tmp/, creating tmp/ the first time (or again if it was removed). */
  private async writeTemporary(
    tmpFile: string,
    chunks: AsyncGenerator<Buffer, void, undefined>,
  ): ReturnType<typeof writeUnsynced> {
    if (!this.tmpReady) {
      await mkdir(this.tmpDir, { recursive: true });
      this.tmpReady = true;
    }
    try {
      return await writeUnsynced(tmpFile, chunks, true);
    } catch (err) {
      // tmp/ gone (removed by hand): only the temporary file's own open, before any chunk was
      // read, is tried again; a body's failure, whatever its code, is final.
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'ENOENT' || e.syscall !== 'open' || e.path !== tmpFile) throw err;
      await mkdir(this.tmpDir, { recursive: true });
      return writeUnsynced(tmpFile, chunks, true);
    }
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<StoredObject> {
    assertValidKey(key);
    assertContentType(contentType);
    // Opened first so a missing file fails with its own ENOENT before anything is written.
    const handle = await open(filePath, 'r');
    try {
      return await this.put(key, handle.createReadStream({ autoClose: false }), contentType);
    } finally {
      await handle.close();
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    let stats: Stats;
    try {
      stats = await stat(this.objectPath(key));
    } catch (err) {
      if (MISSING.has(errorCode(err) ?? '')) return null;
      throw err;
    }
    if (!stats.isFile()) return null; // a "directory" of other keys is not an object
    const sidecar = await this.readSidecar(key);
    if (sidecar && sidecar.size === stats.size && sidecar.mtimeMs === stats.mtimeMs && sidecar.ino === stats.ino) {
      return {
        key,
        size: stats.size,
        etag: sidecar.etag,
        contentType: sidecar.contentType,
        lastModified: new Date(stats.mtimeMs),
      };
    }
    return this.describeByHashing(key, sidecar?.contentType ?? FALLBACK_CONTENT_TYPE);
  }

  async get(key: string, range?: ByteRange): Promise<NodeJS.ReadableStream> {
    assertValidKey(key);
    if (range) assertValidRange(range);
    const { handle, size } = await this.openObject(key);
    try {
      if (!range) return handle.createReadStream();
      if (range.start >= size)
        throw new RangeError(`Range start ${range.start} is past the end of "${key}" (${size} bytes)`);
      // The stream owns the handle from here (autoClose): reading to the end or destroying it closes it.
      return handle.createReadStream({ start: range.start, end: Math.min(range.end, size - 1) });
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await removeAndPrune(this.objectsDir, this.objectPath(key));
    await removeAndPrune(this.metaDir, this.metaPath(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    for (const key of await keysUnder(this.objectsDir, prefix, '')) await this.delete(key);
    // Sidecars whose content is already gone (a crash between the two unlinks of a delete).
    for (const key of await keysUnder(this.metaDir, prefix, '.json'))
      await removeAndPrune(this.metaDir, this.metaPath(key));
  }

  async check(): Promise<void> {
    await Promise.all([this.objectsDir, this.metaDir, this.tmpDir].map((d) => mkdir(d, { recursive: true })));
    const probe = path.join(this.tmpDir, `check-${randomUUID()}`);
    try {
      await writeDurably(probe, Buffer.from('ok'));
    } finally {
      await rm(probe, { force: true });
    }
  }

  private objectPath(key: string): string {
    return path.join(this.objectsDir, ...key.split('/'));
  }

  private metaPath(key: string): string {
    return `${path.join(this.metaDir, ...key.split('/'))}.json`;
  }

  /** Opens the content; size and mtime come from the open handle, so they describe what it reads. */
  private async openObject(key: string): Promise<{ handle: FileHandle; size: number; mtimeMs: number }> {
    let handle: FileHandle;
    try {
      handle = await open(this.objectPath(key), 'r');
    } catch (err) {
      if (MISSING.has(errorCode(err) ?? '') || errorCode(err) === 'EISDIR') throw new StorageNotFoundError(key);
      throw err;
    }
    const stats = await handle.stat();
    // Linux opens directories for reading without complaint.
    if (!stats.isFile()) {
      await handle.close();
      throw new StorageNotFoundError(key);
    }
    return { handle, size: stats.size, mtimeMs: stats.mtimeMs };
  }

  private async readSidecar(key: string): Promise<Sidecar | null> {
    try {
      const parsed = JSON.parse(await readFile(this.metaPath(key), 'utf8')) as Partial<Sidecar>;
      const valid =
        typeof parsed.etag === 'string' && typeof parsed.contentType === 'string' && typeof parsed.size === 'number';
      return valid ? (parsed as Sidecar) : null;
    } catch {
      return null; // missing or torn: the caller recomputes
    }
  }

  /** The slow path (no or stale sidecar): hashes the content through one handle so size and etag agree. */
  private async describeByHashing(key: string, contentType: string): Promise<StoredObject | null> {
    let opened: Awaited<ReturnType<LocalStorage['openObject']>>;
    try {
      opened = await this.openObject(key);
    } catch (err) {
      if (err instanceof StorageNotFoundError) return null;
      throw err;
    }
    const { handle, size, mtimeMs } = opened;
    try {
      const hash = createHash('md5');
      for await (const chunk of handle.createReadStream({ autoClose: false, start: 0 })) hash.update(chunk as Buffer);
      return { key, size, etag: `"${hash.digest('hex')}"`, contentType, lastModified: new Date(mtimeMs) };
    } finally {
      await handle.close();
    }
  }
}
