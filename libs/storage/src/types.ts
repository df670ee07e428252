/** What the storage knows about one object. */
export interface StoredObject {
  key: string;
  size: number;
  /** Quoted, as in an HTTP ETag header: `"<md5 hex>"` for single-part writes. */
  etag: string;
  contentType: string;
  lastModified: Date;
}

/** An inclusive byte range, as in HTTP: `{ start: 0, end: 0 }` is the first byte. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Media storage (generated videos and images). Every method validates its key (see `isValidKey`)
 * and rejects with `InvalidStorageKeyError` before touching the backend.
 */
export interface Storage {
  readonly driver: 'local' | 's3';
  /** Writes an object (whole), returns its metadata. Overwrites. */
  put(key: string, body: Buffer | NodeJS.ReadableStream, contentType: string): Promise<StoredObject>;
  putFile(key: string, filePath: string, contentType: string): Promise<StoredObject>;
  /** Null when absent. */
  stat(key: string): Promise<StoredObject | null>;
  /**
   * Reads the object, or the inclusive byte range [start, end]. Rejects with StorageNotFoundError
   * when absent. An `end` past the last byte is clamped to it; a `start` at or past the end of the
   * object rejects with a RangeError (the caller checks ranges against `stat` first).
   */
  get(key: string, range?: ByteRange): Promise<NodeJS.ReadableStream>;
  /** No error when absent. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with prefix (e.g. 'jobs/job_abc/'). */
  deletePrefix(prefix: string): Promise<void>;
  /** Fails when the backend is unreachable/misconfigured (readiness checks). */
  check(): Promise<void>;
}

export class StorageNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`No stored object at key "${key}"`);
    this.name = 'StorageNotFoundError';
    this.key = key;
  }
}

export class InvalidStorageKeyError extends Error {
  readonly key: string;
  constructor(key: string, what = 'key') {
    super(`Invalid storage ${what}: ${JSON.stringify(key)}`);
    this.name = 'InvalidStorageKeyError';
    this.key = key;
  }
}
