import { PassThrough, Readable } from 'node:stream';
import { chunksOf, readHead, slice } from './streams';

async function collect(stream: AsyncIterable<unknown>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(parts).toString();
}

describe('chunksOf', () => {
  it('yields a Buffer body as one chunk', async () => {
    expect(await collect(chunksOf(Buffer.from('whole')))).toBe('whole');
  });

  it('turns string and Uint8Array chunks into Buffers', async () => {
    const chunks: Buffer[] = [];
    for await (const c of chunksOf(Readable.from(['ab', new Uint8Array([99, 100])]))) chunks.push(c);
    expect(chunks.every((c) => Buffer.isBuffer(c))).toBe(true);
    expect(Buffer.concat(chunks).toString()).toBe('abcd');
  });

  it('keeps an early source error for the reader instead of letting it go unhandled', async () => {
    const source = new PassThrough();
    const chunks = chunksOf(source);
    source.destroy(new Error('early failure'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(collect(chunks)).rejects.toThrow('early failure');
  });
});

describe('readHead', () => {
  it('returns the whole body when it fits within the limit', async () => {
    const read = await readHead(chunksOf(Readable.from([Buffer.from('abc'), Buffer.from('def')])), 10);
    expect(read).toEqual({ done: true, head: Buffer.from('abcdef') });
  });

  it('replays what it read, then the rest, when the body is larger than the limit', async () => {
    const read = await readHead(chunksOf(Readable.from(['abc', 'def', 'ghi', 'jkl'].map((s) => Buffer.from(s)))), 4);
    expect(read.done).toBe(false);
    if (!read.done) expect(await collect(read.rest)).toBe('abcdefghijkl');
  });
});

describe('slice', () => {
  const source = () => Readable.from(['0123', '4567', '89ab'].map((s) => Buffer.from(s)));

  it.each([
    [0, 1, '0'],
    [0, 12, '0123456789ab'],
    [3, 2, '34'],
    [4, 4, '4567'],
    [5, 6, '56789a'],
    [11, 1, 'b'],
  ])('skips %i bytes and keeps %i', async (skip, length, expected) => {
    expect(await collect(slice(source(), skip, length))).toBe(expected);
  });

  it('stops reading the source once it has enough', async () => {
    const upstream = source();
    expect(await collect(slice(upstream, 0, 2))).toBe('01');
    expect(upstream.destroyed).toBe(true);
  });

  it('fails when the source ends before the window is full', async () => {
    await expect(collect(slice(source(), 10, 5))).rejects.toThrow(/short/);
  });
});
