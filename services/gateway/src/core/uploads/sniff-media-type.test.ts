import { sniffMediaType } from './sniff-media-type';

const bytes = (...parts: (number[] | string)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffMediaType', () => {
  it.each<[string, Buffer, string]>([
    ['png', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13]), 'image/png'],
    ['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), 'image/jpeg'],
    ['webp', bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), 'image/webp'],
    ['wav', bytes('RIFF', [1, 2, 3, 4], 'WAVEfmt '), 'audio/wav'],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]), 'video/webm'],
    ['mp3 with an ID3 tag', bytes('ID3', [4, 0, 0, 0, 0, 0, 0]), 'audio/mpeg'],
    ['mp3 frame', bytes([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]), 'audio/mpeg'],
    ['mp4', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]), 'video/mp4'],
    ['mov', bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 0, 0]), 'video/quicktime'],
    ['m4a', bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 0, 0]), 'audio/mp4'],
  ])('recognises %s by its bytes', (_, head, type) => {
    expect(sniffMediaType(head)?.contentType).toBe(type);
  });

  it.each<[string, Buffer]>([
    ['text', Buffer.from('hello, this is not a video at all')],
    ['a gif', bytes('GIF89a', [0, 0, 0, 0, 0, 0])],
    ['a pdf', bytes('%PDF-1.7', [0, 0, 0, 0])],
    ['too few bytes', bytes([0, 0])],
    ['nothing', Buffer.alloc(0)],
  ])('refuses %s', (_, head) => {
    expect(sniffMediaType(head)).toBeNull();
  });
});
