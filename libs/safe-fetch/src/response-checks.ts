import { Transform, type TransformCallback } from 'node:stream';
import { FetchError } from './errors';

/** The Accept header for a list of accepted content-type prefixes ('image/' -> 'image/*'). */
export function acceptHeader(accept: string[] | undefined): string {
  if (!accept || accept.length === 0) return '*/*';
  return accept.map((a) => (a.endsWith('/') ? `${a}*` : a)).join(', ');
}

export function isAccepted(contentType: string | null, accept: string[]): boolean {
  if (contentType === null) return false;
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return accept.some((prefix) => mediaType.startsWith(prefix.toLowerCase()));
}

export function headerString(value: unknown): string | null {
  if (Array.isArray(value)) return headerString(value[0]);
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** Counts the bytes going through and fails as soon as there are more than allowed. */
export class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes)
      callback(new FetchError('too-large', `Response is larger than ${this.maxBytes} bytes`));
    else callback(null, chunk);
  }
}
