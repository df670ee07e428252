import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@mf/logger';
import type { VideoSegment } from '../domain/timeline';
import type { OutputSpec } from './ffmpeg-args';

/** Bump when the normalise arguments change: older entries then simply stop matching. */
const CACHE_FORMAT = 1;
const EXT = '.mov';
/** A copy left by a crash mid-store is removed once this old. */
const STALE_TMP_MS = 3600_000;

/**
 * sha256 of what decides a normalised clip's bytes: the source object (storage key and ETag), how
 * long it plays (frames, still or not), the output spec (size, fit, fps) and the clip's volume
 * (applied to its own sound during normalisation).
 */
export function clipCacheKey(segment: VideoSegment, spec: OutputSpec): string {
  const { clip } = segment;
  const parts = [CACHE_FORMAT, clip.storage_key, segment.source.etag, segment.still ? 'still' : 'video', segment.frames, spec.width, spec.height, spec.fit, spec.fps, clip.volume];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export interface CacheEntry {
  path: string;
  /** Lets eviction delete it again; call once the export no longer reads the file. */
  release: () => void;
}

/**
 * Normalised clips on disk, `<key>.mov`, least recently used evicted above `maxBytes` (recency is
 * the file's mtime, refreshed on every hit). Entries an export is reading are pinned in memory, so
 * the directory belongs to one process. A store is a rename (or a copy then rename), so a reader
 * never sees a partial file.
 */
export class ClipCache {
  private readonly pins = new Map<string, number>();

  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** The cached clip, pinned, or null. */
  async lookup(key: string): Promise<CacheEntry | null> {
    const file = this.fileOf(key);
    this.pin(key); // before touching it: an eviction in between must not take it
    try {
      const now = new Date();
      await utimes(file, now, now);
      return { path: file, release: this.releaser(key) };
    } catch {
      this.unpin(key);
      return null;
    }
  }

  /** Moves a finished clip into the cache; returns it pinned. */
  async store(key: string, file: string): Promise<CacheEntry> {
    await mkdir(this.dir, { recursive: true });
    const target = this.fileOf(key);
    this.pin(key);
    try {
      try {
        await rename(file, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        // Another filesystem: copy beside the target first so the final rename stays atomic.
        const tmp = path.join(this.dir, `.tmp-${randomUUID()}`);
        try {
          await copyFile(file, tmp);
          await rename(tmp, target);
        } finally {
          await rm(tmp, { force: true });
        }
      }
      return { path: target, release: this.releaser(key) };
    } catch (err) {
      this.unpin(key);
      throw err;
    }
  }

  /** Deletes least recently used, unpinned clips until the cache fits in maxBytes. */
  async evict(): Promise<{ removed: number; bytes: number }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return { removed: 0, bytes: 0 };
    }
    const entries: Array<{ file: string; key: string; size: number; mtimeMs: number }> = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) continue;
      if (name.startsWith('.tmp-')) {
        if (Date.now() - info.mtimeMs > STALE_TMP_MS) await rm(file, { force: true });
        continue;
      }
      if (name.endsWith(EXT)) entries.push({ file, key: name.slice(0, -EXT.length), size: info.size, mtimeMs: info.mtimeMs });
    }
    let bytes = entries.reduce((sum, e) => sum + e.size, 0);
    let removed = 0;
    for (const e of entries.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
      if (bytes <= this.maxBytes) break;
      if (this.pins.has(e.key)) continue;
      await rm(e.file, { force: true });
      bytes -= e.size;
      removed++;
    }
    if (removed > 0) this.logger.info({ removed, bytes }, 'export cache: evicted least recently used clips');
    return { removed, bytes };
  }

  private fileOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`invalid cache key ${key}`);
    return path.join(this.dir, `${key}${EXT}`);
  }

  private pin(key: string): void {
    this.pins.set(key, (this.pins.get(key) ?? 0) + 1);
  }

  private unpin(key: string): void {
    const n = (this.pins.get(key) ?? 1) - 1;
    if (n <= 0) this.pins.delete(key);
    else this.pins.set(key, n);
  }

  private releaser(key: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unpin(key);
    };
  }
}
