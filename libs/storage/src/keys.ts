import { InvalidStorageKeyError, type ByteRange } from './types';

export const MAX_KEY_LENGTH = 512;
const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Keys are '/'-joined segments of [A-Za-z0-9._-]: no empty segment (so no leading, trailing or
 * doubled '/'), no '..' anywhere and no '.' segment (both would alias or escape a directory on the
 * local driver), at most 512 characters. The same keys are then safe as file paths, S3 object names
 * and URL paths without any encoding.
 */
export function isValidKey(key: string): boolean {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  if (key.includes('..')) return false;
  return key.split('/').every((segment) => segment !== '.' && SEGMENT.test(segment));
}

/** A prefix is a valid key, optionally followed by one '/'. Empty is refused: it would mean "everything". */
export function isValidPrefix(prefix: string): boolean {
  if (typeof prefix !== 'string') return false;
  return isValidKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidStorageKeyError(key);
}

export function assertValidPrefix(prefix: string): void {
  if (!isValidPrefix(prefix)) throw new InvalidStorageKeyError(prefix, 'prefix');
}

export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`Invalid byte range ${JSON.stringify(range)}: need integers with 0 <= start <= end`);
  }
}

export function assertContentType(contentType: string): void {
  // It ends up verbatim in a response header, so no control characters (header injection).
  if (typeof contentType !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(contentType)) {
    throw new TypeError(`Invalid content type: ${JSON.stringify(contentType)}`);
  }
}
