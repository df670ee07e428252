import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `file` through a temporary name unique to this process and renames it into place, so a
 * file under the final name is always complete, even with another replica rendering the same job.
 */
export async function atomically(file: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    await write(tmp);
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
  }
}

export async function allExist(outputs: Array<{ path: string }>): Promise<boolean> {
  for (const o of outputs) {
    const s = await stat(o.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
      throw err;
    });
    if (!s?.isFile() || s.size === 0) return false;
  }
  return true;
}
