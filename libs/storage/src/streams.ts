import { Readable } from 'node:stream';

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('Storage bodies must be byte streams (Buffer, Uint8Array or string chunks)');
}

/**
 * The body as Buffer chunks, whatever it is: a Buffer, a Readable or an old-style stream. Call it
 * synchronously on entry: a source that fails while the caller is still awaiting something else
 * (mkdir, the bucket check) would otherwise raise an unhandled 'error' event and crash the process.
 * The error is not lost: iterating a destroyed stream rethrows it.
 */
export function chunksOf(body: Buffer | NodeJS.ReadableStream): AsyncGenerator<Buffer, void, undefined> {
  if (Buffer.isBuffer(body))
    // An async generator like the stream case below, so callers iterate every body the same way.
    // eslint-disable-next-line @typescript-eslint/require-await
    return (async function* () {
      yield body;
    })();
  const readable = body instanceof Readable ? body : new Readable().wrap(body);
  readable.on('error', () => {});
  return (async function* () {
    for await (const chunk of readable) yield toBuffer(chunk);
  })();
}

/**
 * Reads chunks until more than `limit` bytes have arrived or they end. If it ended, `head` is the
 * whole body; otherwise `rest` replays what was read and then streams the remainder.
 */
export async function readHead(
  chunks: AsyncGenerator<Buffer, void, undefined>,
  limit: number,
): Promise<{ done: true; head: Buffer } | { done: false; rest: Readable }> {
  const head: Buffer[] = [];
  let size = 0;
  while (size <= limit) {
    const next = await chunks.next();
    if (next.done) return { done: true, head: Buffer.concat(head, size) };
    head.push(next.value);
    size += next.value.length;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* head;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    } finally {
      await chunks.return(undefined); // a consumer that stops early also stops (destroys) the source
    }
  }
  return { done: false, rest: Readable.from(replay(), { objectMode: false }) };
}

/**
 * Passes on `length` bytes after skipping `skip`, then stops (destroying the source, so a large
 * remainder is never downloaded).
 */
export function slice(source: Readable, skip: number, length: number): Readable {
  async function* window(): AsyncGenerator<Buffer> {
    let toSkip = skip;
    let toTake = length;
    for await (const raw of source) {
      let chunk = toBuffer(raw);
      if (toSkip > 0) {
        const dropped = Math.min(toSkip, chunk.length);
        chunk = chunk.subarray(dropped);
        toSkip -= dropped;
      }
      if (chunk.length === 0) continue;
      if (chunk.length >= toTake) {
        yield chunk.subarray(0, toTake);
        return;
      }
      yield chunk;
      toTake -= chunk.length;
    }
    if (toTake > 0) throw new Error(`Object stream ended ${toTake} bytes short of the requested range`);
  }
  return Readable.from(window(), { objectMode: false });
}
