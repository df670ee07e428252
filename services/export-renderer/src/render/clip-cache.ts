import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@mf/logger';
import { AbortedError } from './limiter';

/** What the cache holds: a clip's picture, a clip's sound (16-bit PCM), an overlay bus (float PCM), a soundtrack. */
export const PIECE_EXTS = ['.mov', '.wav', '.f32.wav', '.m4a'] as const;
export type PieceExt = (typeof PIECE_EXTS)[number];

/** A copy left by a crash mid-store is removed once this old. */
const STALE_TMP_MS = 3600_000;

export interface CacheEntry {
  path: string;
  /** Lets eviction delete it again; call once the export no longer reads the file. */
  release: () => void;
}

/**
 * The pieces exports are made of, on disk as `<key><ext>` (keys from cache-keys.ts), least recently
 * used evicted above `maxBytes` (recency is the file's mtime, refreshed on every hit). Entries an
 * export is reading are pinned in memory, so the directory belongs to one process. A store is a
 * rename (or a copy then rename), so a reader never sees a partial file. Two exports that need the
 * same missing piece at once make it once (`obtain`).
 */
export class ClipCache {
  private readonly pins = new Map<string, number>();
  /** Pieces being made now, by name: a second caller waits for the first instead of making it again. */
  private readonly making = new Map<string, Promise<void>>();

  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** The cached piece, pinned, or null. */
  async lookup(key: string, ext: PieceExt): Promise<CacheEntry | null> {
    const name = this.nameOf(key, ext);
    this.pin(name); // before touching it: an eviction in between must not take it
    try {
      const now = new Date();
      await utimes(path.join(this.dir, name), now, now);
      return { path: path.join(this.dir, name), release: this.releaser(name) };
    } catch {
      this.unpin(name);
      return null;
    }
  }

  /** Moves a finished piece into the cache; returns it pinned. */
  async store(key: string, ext: PieceExt, file: string): Promise<CacheEntry> {
    await mkdir(this.dir, { recursive: true });
    const name = this.nameOf(key, ext);
    const target = path.join(this.dir, name);
    this.pin(name);
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
      return { path: target, release: this.releaser(name) };
    } catch (err) {
      this.unpin(name);
      throw err;
    }
  }

  /**
   * The piece: from the cache, else made by `make` into `file` and stored. When another export is
   * making the same piece, waits for it (or until `signal` fires) and takes its result; if that
   * attempt failed, makes it here. A cache that cannot be written only costs speed: the piece is
   * then used from `file`. `made` tells whether this call rendered it.
   */
  async obtain(
    key: string,
    ext: PieceExt,
    file: string,
    make: () => Promise<void>,
    signal: AbortSignal,
  ): Promise<{ entry: CacheEntry; made: boolean }> {
    const name = this.nameOf(key, ext);
    for (;;) {
      const hit = await this.lookup(key, ext);
      if (hit) return { entry: hit, made: false };
      const running = this.making.get(name);
      if (!running) break;
      await untilSettled(running, signal);
    }
    const attempt = (async (): Promise<CacheEntry> => {
      await make();
      return this.store(key, ext, file).catch((err: unknown) => {
        this.logger.warn({ err }, 'export cache: piece not stored');
        return { path: file, release: () => undefined };
      });
    })();
    this.making.set(
      name,
      attempt.then(
        () => undefined,
        () => undefined,
      ),
    );
    try {
      return { entry: await attempt, made: true };
    } finally {
      this.making.delete(name);
    }
  }

  /** Deletes least recently used, unpinned pieces until the cache fits in maxBytes. */
  async evict(): Promise<{ removed: number; bytes: number }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return { removed: 0, bytes: 0 };
    }
    const entries: Array<{ file: string; name: string; size: number; mtimeMs: number }> = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) continue;
      if (name.startsWith('.tmp-')) {
        if (Date.now() - info.mtimeMs > STALE_TMP_MS) await rm(file, { force: true });
        continue;
      }
      if (PIECE_EXTS.some((ext) => name.endsWith(ext)))
        entries.push({ file, name, size: info.size, mtimeMs: info.mtimeMs });
    }
    let bytes = entries.reduce((sum, e) => sum + e.size, 0);
    let removed = 0;
    for (const e of entries.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
      if (bytes <= this.maxBytes) break;
      if (this.pins.has(e.name)) continue;
      await rm(e.file, { force: true });
      bytes -= e.size;
      removed++;
    }
    if (removed > 0) this.logger.info({ removed, bytes }, 'export cache: evicted least recently used pieces');
    return { removed, bytes };
  }

  private nameOf(key: string, ext: PieceExt): string {
    if (!/^[0-9a-f]{64}$/.test(key) || !PIECE_EXTS.includes(ext)) throw new Error(`invalid cache entry ${key}${ext}`);
    return `${key}${ext}`;
  }

  private pin(name: string): void {
    this.pins.set(name, (this.pins.get(name) ?? 0) + 1);
  }

  private unpin(name: string): void {
    const n = (this.pins.get(name) ?? 1) - 1;
    if (n <= 0) this.pins.delete(name);
    else this.pins.set(name, n);
  }

  private releaser(name: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unpin(name);
    };
  }
}

/** Resolves once `work` settled (its outcome is the maker's business), rejects if `signal` fires first. */
export function untilSettled(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    void work
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
  });
}
