import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export async function tempDir(label: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `mf-storage-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** s3rver's fixed credentials. */
export const S3RVER_ACCESS_KEY = 'S3RVER';
export const S3RVER_SECRET_KEY = 'S3RVER';

/** An s3rver on a free (or the given) port, storing in a fresh temp dir; `stop` closes it and removes the dir. */
export async function startS3rver(port = 0): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const data = await tempDir('s3rver');
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: data.dir, resetOnClose: true });
  // s3rver deletes a multi-object delete's keys in parallel, and each delete then prunes the
  // directories it left empty, racing the others (ENOENT, answered 500). Real S3 has no such race;
  // one delete at a time keeps these tests deterministic.
  const store = server.store;
  const deleteOne = store.deleteObject.bind(store);
  let queue: Promise<unknown> = Promise.resolve();
  store.deleteObject = (bucket, key) => {
    const run = queue.then(() => deleteOne(bucket, key));
    queue = run.catch(() => undefined);
    return run;
  };
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
      await data.remove();
    },
  };
}

/** A port that was free a moment ago and has nothing listening on it now. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
