import { stat as statFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import * as Minio from 'minio';
import type { S3StorageConfig } from './config';
import { assertContentType, assertValidKey, assertValidPrefix, assertValidRange } from './keys';
import { chunksOf, readHead, slice } from './streams';
import { StorageNotFoundError, type ByteRange, type Storage, type StoredObject } from './types';

/**
 * Multipart part size. Bodies up to this size go up in one PUT (their ETag is then the md5, as on
 * the local driver); a stream of unknown length is buffered this far, not minio's default of
 * ~500 MB per part for unknown sizes. 16 MB x 10,000 parts caps an object at 160 GB.
 */
const PART_SIZE = 16 * 1024 * 1024;
const CHECK_TIMEOUT_MS = 5000;
const ABSENT_CODES = new Set(['NoSuchKey', 'NotFound', 'NoSuchBucket']);
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

function s3Code(err: unknown): string | undefined {
  return (err as { code?: unknown } | null)?.code as string | undefined;
}

/** Quoted, as HTTP wants it: minio strips the quotes the server sent. */
function quoteEtag(etag: string): string {
  return `"${etag.replace(/"/g, '')}"`;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Any S3 API (MinIO, AWS S3, R2...) through the minio client, path-style, one bucket. */
export class S3Storage implements Storage {
  readonly driver = 's3' as const;
  private readonly client: Minio.Client;
  private readonly bucket: string;
  private readonly region: string;
  private bucketReady: Promise<void> | null = null;

  constructor(config: S3StorageConfig) {
    const url = new URL(config.endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`S3 endpoint must be http(s): ${config.endpoint}`);
    const useSSL = url.protocol === 'https:';
    this.bucket = config.bucket;
    this.region = config.region ?? 'us-east-1';
    this.client = new Minio.Client({
      endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'), // IPv6 literals come bracketed from URL
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: config.accessKey,
      secretKey: config.secretKey,
      region: this.region, // set, so minio never asks the server for the bucket's region
      pathStyle: true,
      partSize: PART_SIZE,
    });
  }

  async put(key: string, body: Buffer | NodeJS.ReadableStream, contentType: string): Promise<StoredObject> {
    assertValidKey(key);
    assertContentType(contentType);
    const source = Buffer.isBuffer(body) ? body : chunksOf(body); // before any await: see chunksOf
    await this.ensureBucket();
    const metadata = { 'Content-Type': contentType };
    if (Buffer.isBuffer(source)) {
      await this.client.putObject(this.bucket, key, source, source.length, metadata);
    } else {
      const read = await readHead(source, PART_SIZE);
      if (read.done) await this.client.putObject(this.bucket, key, read.head, read.head.length, metadata);
      else await this.client.putObject(this.bucket, key, read.rest, undefined, metadata);
    }
    return this.statAfterWrite(key);
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<StoredObject> {
    assertValidKey(key);
    assertContentType(contentType);
    const { size } = await statFile(filePath); // fails with ENOENT before anything is sent
    await this.ensureBucket();
    await this.client.putObject(this.bucket, key, createReadStream(filePath), size, { 'Content-Type': contentType });
    return this.statAfterWrite(key);
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    let stat: Minio.BucketItemStat;
    try {
      stat = await this.client.statObject(this.bucket, key);
    } catch (err) {
      if (ABSENT_CODES.has(s3Code(err) ?? '')) return null;
      throw err;
    }
    // minio types the metadata as `any`: it is the object's stored headers.
    const meta = stat.metaData as Record<string, string | undefined>;
    const contentType = meta['content-type'] ?? meta['Content-Type'];
    return {
      key,
      size: stat.size,
      etag: quoteEtag(stat.etag),
      contentType: typeof contentType === 'string' && contentType ? contentType : FALLBACK_CONTENT_TYPE,
      lastModified: stat.lastModified,
    };
  }

  async get(key: string, range?: ByteRange): Promise<NodeJS.ReadableStream> {
    assertValidKey(key);
    if (range) assertValidRange(range);
    try {
      if (!range) return await this.client.getObject(this.bucket, key);
      const response = await this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1);
      return exactRange(response, range);
    } catch (err) {
      if (ABSENT_CODES.has(s3Code(err) ?? '')) throw new StorageNotFoundError(key);
      if (s3Code(err) === 'InvalidRange')
        throw new RangeError(`Range start ${range?.start} is past the end of "${key}"`);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    try {
      await this.client.removeObject(this.bucket, key); // S3 answers 204 for absent keys too
    } catch (err) {
      if (!ABSENT_CODES.has(s3Code(err) ?? '')) throw err;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    const names: string[] = [];
    try {
      // Listed in full before deleting: deleting while paging would shift the continuation.
      // An object-mode Readable of BucketItem, whose chunks Readable types as `any`.
      for await (const item of this.client.listObjectsV2(
        this.bucket,
        prefix,
        true,
      ) as AsyncIterable<Minio.BucketItem>) {
        if (item.name) names.push(item.name);
      }
    } catch (err) {
      if (s3Code(err) === 'NoSuchBucket') return;
      throw err;
    }
    if (names.length === 0) return;
    // minio returns the per-key errors of the multi-delete (typed loosely) rather than throwing.
    const failures = (await this.client.removeObjects(this.bucket, names)).filter((r) => r);
    if (failures.length > 0)
      throw new Error(
        `Could not delete ${failures.length} object(s) under "${prefix}": ${JSON.stringify(failures.slice(0, 3))}`,
      );
  }

  async check(): Promise<void> {
    // Always asks the server (a readiness probe must not answer from memory), within a bound: an
    // endpoint that swallows packets would otherwise hang the probe.
    await withTimeout(this.createBucketIfMissing(), CHECK_TIMEOUT_MS, `S3 check of bucket "${this.bucket}"`);
    this.bucketReady ??= Promise.resolve();
  }

  /** Creates the bucket once per process, on first use; a failure is retried on the next call. */
  private ensureBucket(): Promise<void> {
    this.bucketReady ??= this.createBucketIfMissing().catch((err: unknown) => {
      this.bucketReady = null;
      throw err;
    });
    return this.bucketReady;
  }

  private async createBucketIfMissing(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (err) {
      // Another process may have created it between the two calls.
      if (!(await this.client.bucketExists(this.bucket))) throw err;
    }
  }

  private async statAfterWrite(key: string): Promise<StoredObject> {
    const stored = await this.stat(key);
    // Only a concurrent delete can get here; say so rather than return made-up metadata.
    if (!stored) throw new StorageNotFoundError(key);
    return stored;
  }
}

/**
 * Makes sure the stream holds exactly the asked bytes. An HTTP server may ignore a Range (200 with
 * the whole object) or widen it (s3rver answers `bytes=0-0` with the whole object); minio passes
 * either through, so the response's own status and Content-Range decide what to skip and keep.
 */
function exactRange(response: Readable, range: ByteRange): Readable {
  if (!(response instanceof IncomingMessage)) return response;
  let first: number;
  let total: number;
  if (response.statusCode === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers['content-range'] ?? '');
    if (!m) {
      response.destroy();
      throw new Error(
        `S3 answered a range request with an unreadable Content-Range: ${response.headers['content-range']}`,
      );
    }
    first = Number(m[1]);
    total = m[3] === '*' ? Number(m[2]) + 1 : Number(m[3]);
    if (first === range.start && Number(m[2]) === Math.min(range.end, total - 1)) return response; // the usual case
  } else {
    first = 0;
    total = Number(response.headers['content-length']);
  }
  if (range.start >= total) {
    response.destroy();
    throw new RangeError(`Range start ${range.start} is past the end of the object (${total} bytes)`);
  }
  if (first > range.start) {
    response.destroy();
    throw new Error(`S3 answered bytes from ${first} for a range starting at ${range.start}`);
  }
  return slice(response, range.start - first, Math.min(range.end, total - 1) - range.start + 1);
}
