/** The media types an upload may be, told by the file's first bytes (never by its name or declared type). */
export interface SniffedType {
  contentType: string;
  ext: string;
}

/** How many leading bytes the sniffer needs to decide. */
export const SNIFF_BYTES = 16;

export const ACCEPTED_UPLOADS = 'mp4, mov, webm, png, jpeg, webp, mp3, wav or m4a';

const ascii = (buf: Buffer, start: number, end: number) => buf.subarray(start, end).toString('latin1');
const startsWith = (buf: Buffer, bytes: number[]) => bytes.every((b, i) => buf[i] === b);

/** An ISO base media file (mp4, mov, m4a) by its ftyp box's major brand. */
function isoMedia(buf: Buffer): SniffedType | null {
  const box = ascii(buf, 4, 8);
  // Old QuickTime files may start with another top-level atom than ftyp.
  if (box === 'moov' || box === 'mdat' || box === 'wide') return { contentType: 'video/quicktime', ext: 'mov' };
  if (box !== 'ftyp') return null;
  const brand = ascii(buf, 8, 12);
  if (brand === 'qt  ') return { contentType: 'video/quicktime', ext: 'mov' };
  if (brand === 'M4A ' || brand === 'M4B ') return { contentType: 'audio/mp4', ext: 'm4a' };
  return { contentType: 'video/mp4', ext: 'mp4' };
}

/** The accepted type the bytes start with, or null (the upload is refused with a 415). */
export function sniffMediaType(head: Buffer): SniffedType | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { contentType: 'image/png', ext: 'png' };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', ext: 'jpg' };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return { contentType: 'image/webp', ext: 'webp' };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return { contentType: 'audio/wav', ext: 'wav' };
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return { contentType: 'video/webm', ext: 'webm' };
  // MP3: an ID3v2 tag, or an MPEG audio frame header (11 sync bits, layer III).
  if (ascii(head, 0, 3) === 'ID3') return { contentType: 'audio/mpeg', ext: 'mp3' };
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe6) === 0xe2)
    return { contentType: 'audio/mpeg', ext: 'mp3' };
  if (head.length >= 12) return isoMedia(head);
  return null;
}
