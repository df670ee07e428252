import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { isValidKey } from './keys';

/** File-system steps of LocalStorage: durable writes, atomic moves, pruning, walking a key prefix. */

export const MISSING = new Set(['ENOENT', 'ENOTDIR']);

export function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Renames into place (the parent directory should exist: see put), creating it if it does not;
 * retries if a concurrent delete prunes it in between. The caller fsyncs the directory.
 */
export async function renameInto(from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      if (errorCode(err) !== 'ENOENT' || attempt >= 5) throw err;
    }
    await mkdir(path.dirname(to), { recursive: true });
  }
}

/** Unlinks a file if present, then removes the directories it leaves empty (up to the tree root). */
export async function removeAndPrune(treeRoot: string, file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    const code = errorCode(err) ?? '';
    // EISDIR/EPERM: the key names a "directory" of other keys, which is not an object.
    if (MISSING.has(code) || code === 'EISDIR' || code === 'EPERM') return;
    throw err;
  }
  for (let dir = path.dirname(file); dir.startsWith(treeRoot + path.sep); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      break; // not empty (or already gone): nothing further up is empty either
    }
  }
}

/** Keys of the files under `treeRoot` that start with `prefix` (file names end with `suffix`). */
export async function keysUnder(treeRoot: string, prefix: string, suffix: string): Promise<string[]> {
  const slash = prefix.lastIndexOf('/');
  const dirKey = slash >= 0 ? prefix.slice(0, slash) : '';
  const keys: string[] = [];
  const walk = async (dirPath: string, keyPrefix: string, namePrefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dirPath, { withFileTypes: true });
    } catch (err) {
      if (MISSING.has(errorCode(err) ?? '')) return;
      throw err;
    }
    for (const entry of entries) {
      if (!entry.name.startsWith(namePrefix)) continue;
      if (entry.isDirectory()) {
        // Below the first level everything matches: the prefix is already a prefix of the path.
        await walk(path.join(dirPath, entry.name), `${keyPrefix}${entry.name}/`, '');
      } else if (entry.isFile() && entry.name.endsWith(suffix)) {
        const key = `${keyPrefix}${entry.name.slice(0, entry.name.length - suffix.length)}`;
        if (isValidKey(key) && key.startsWith(prefix)) keys.push(key);
      }
    }
  };
  const dirPath = dirKey ? path.join(treeRoot, ...dirKey.split('/')) : treeRoot;
  await walk(dirPath, dirKey ? `${dirKey}/` : '', prefix.slice(slash + 1));
  return keys;
}

/**
 * Writes chunks to a new file, not yet synced: the caller fsyncs and closes `handle` (so the fsync
 * can overlap other work). Returns the quoted md5 of what was written and the file's stats, which
 * fsync does not change.
 */
export async function writeUnsynced(
  file: string,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  hashIt: boolean,
): Promise<{ handle: FileHandle; etag: string; stats: Stats }> {
  const handle = await open(file, 'wx');
  try {
    const hash = createHash('md5');
    for await (const chunk of chunks) {
      if (hashIt) hash.update(chunk);
      // write() may write less than asked; loop until the chunk is all written.
      for (let offset = 0; offset < chunk.length;) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    }
    const stats = await handle.stat();
    return { handle, etag: `"${hash.digest('hex')}"`, stats };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Writes a small file and fsyncs it. */
export async function writeDurably(file: string, data: Buffer): Promise<void> {
  const { handle } = await writeUnsynced(file, [data], false);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsyncs a directory so a rename into it survives a crash. Best effort: not every platform allows it. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows and some filesystems refuse; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
