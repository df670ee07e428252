import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { createStorage, StorageNotFoundError, type Storage, type StoredObject } from '@mf/storage';
import { mediaRoutes } from './media.routes';

const logger = createLogger('gateway-media-test', 'silent');
const SIZE = 50_000;
const VIDEO_KEY = 'jobs/job_abc123/video.mp4';
const video = randomBytes(SIZE);

function buildApp(storage: Storage): Express {
  const app = createHttpApp({ logger });
  app.use(mediaRoutes(storage));
  finish(app, logger);
  return app;
}

/** Collects the raw body whatever its content type (superagent only buffers text and JSON by itself). */
const bytes: Parameters<request.Test['parse']>[0] = (res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('GET and HEAD /media/*key', () => {
  let dir: string;
  let storage: Storage;
  let stored: StoredObject;
  let app: Express;

  const get = (url: string) => request(app).get(url).buffer(true).parse(bytes);
  const getVideo = (headers: Record<string, string> = {}) => get(`/media/${VIDEO_KEY}`).set(headers);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mf-gateway-media-'));
    storage = createStorage({ driver: 'local', dir });
    stored = await storage.put(VIDEO_KEY, video, 'video/mp4');
    await storage.put('jobs/job_abc123/notes.txt', Buffer.from('plain text'), 'text/plain');
    await storage.put('jobs/job_abc123/empty.bin', Buffer.alloc(0), 'application/octet-stream');
    app = buildApp(storage);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('a whole object', () => {
    it('answers 200 with the exact bytes and every caching and range header, without authentication', async () => {
      const res = await getVideo();
      expect(res.status).toBe(200);
      expect(Buffer.compare(res.body as Buffer, video)).toBe(0);
      expect(res.headers).toMatchObject({
        'content-type': 'video/mp4',
        'content-length': String(SIZE),
        etag: stored.etag,
        'last-modified': stored.lastModified.toUTCString(),
        'accept-ranges': 'bytes',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      });
      expect(res.headers['content-range']).toBeUndefined();
    });

    it('sends the stored content type verbatim (no charset added)', async () => {
      const res = await get('/media/jobs/job_abc123/notes.txt');
      expect(res.headers['content-type']).toBe('text/plain');
      expect((res.body as Buffer).toString()).toBe('plain text');
    });

    it('serves an empty object as 200 with Content-Length 0', async () => {
      const res = await get('/media/jobs/job_abc123/empty.bin');
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe('0');
      expect((res.body as Buffer).length).toBe(0);
    });

    it('HEAD answers the same headers without reading the object', async () => {
      const read = jest.spyOn(storage, 'get');
      try {
        const res = await request(app).head(`/media/${VIDEO_KEY}`);
        expect(res.status).toBe(200);
        expect(res.headers).toMatchObject({
          'content-type': 'video/mp4',
          'content-length': String(SIZE),
          etag: stored.etag,
          'last-modified': stored.lastModified.toUTCString(),
          'accept-ranges': 'bytes',
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        });
        expect(read).not.toHaveBeenCalled();
      } finally {
        read.mockRestore();
      }
    });
  });

  describe('not found', () => {
    it.each([
      ['an absent object', '/media/jobs/job_abc123/missing.mp4'],
      ['a key that is only a prefix of objects', '/media/jobs/job_abc123'],
      ['a traversal with an encoded slash', '/media/..%2F..%2Fetc%2Fpasswd'],
      ['an encoded slash inside a segment', '/media/jobs%2Fjob_abc123%2Fvideo.mp4'],
      ['a parent segment', '/media/jobs/../jobs/job_abc123/video.mp4'],
      ['an empty segment', '/media/jobs//job_abc123/video.mp4'],
      ['a space', '/media/with%20space'],
      ['a trailing slash', '/media/jobs/job_abc123/'],
    ])('answers 404 {"error":"Not found"} for %s, with no cache headers', async (_what, url) => {
      const res = await request(app).get(url);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
      expect(res.headers['cache-control']).toBeUndefined();
      expect(res.headers.etag).toBeUndefined();
    });

    it('answers 404 to HEAD of an absent object', async () => {
      expect((await request(app).head('/media/nothing/here.mp4')).status).toBe(404);
    });

    it('does not serve other methods', async () => {
      expect((await request(app).post(`/media/${VIDEO_KEY}`)).status).toBe(404);
      expect((await request(app).delete(`/media/${VIDEO_KEY}`)).status).toBe(404);
    });
  });

  describe('conditional requests', () => {
    it('answers 304 with no body when If-None-Match carries the ETag', async () => {
      const res = await getVideo({ 'If-None-Match': stored.etag });
      expect(res.status).toBe(304);
      expect((res.body as Buffer | undefined)?.length ?? 0).toBe(0);
      expect(res.headers.etag).toBe(stored.etag);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    });

    it.each([
      ['a list that contains it', () => `"other", ${stored.etag}`],
      ['its weak form', () => `W/${stored.etag}`],
      ['*', () => '*'],
    ])('answers 304 when If-None-Match is %s', async (_what, value) => {
      expect((await getVideo({ 'If-None-Match': value() })).status).toBe(304);
    });

    it('answers 304 to HEAD with a matching If-None-Match', async () => {
      expect((await request(app).head(`/media/${VIDEO_KEY}`).set('If-None-Match', stored.etag)).status).toBe(304);
    });

    it('answers 200 with the body when If-None-Match carries another ETag', async () => {
      const res = await getVideo({ 'If-None-Match': '"0123456789abcdef0123456789abcdef"' });
      expect(res.status).toBe(200);
      expect((res.body as Buffer).length).toBe(SIZE);
    });

    it('answers 304 when If-Modified-Since is not older than Last-Modified', async () => {
      expect((await getVideo({ 'If-Modified-Since': stored.lastModified.toUTCString() })).status).toBe(304);
    });

    it('answers 200 when If-Modified-Since is older than Last-Modified', async () => {
      const older = new Date(stored.lastModified.getTime() - 60_000).toUTCString();
      expect((await getVideo({ 'If-Modified-Since': older })).status).toBe(200);
    });

    it('lets a non-matching If-None-Match win over a matching If-Modified-Since', async () => {
      const res = await getVideo({
        'If-None-Match': '"different"',
        'If-Modified-Since': stored.lastModified.toUTCString(),
      });
      expect(res.status).toBe(200);
    });
  });

  describe('byte ranges', () => {
    it.each([
      ['the first byte', 'bytes=0-0', 0, 0],
      ['a middle range', 'bytes=1000-1999', 1000, 1999],
      ['the last byte', `bytes=${SIZE - 1}-${SIZE - 1}`, SIZE - 1, SIZE - 1],
      ['an open-ended range (a browser seek)', 'bytes=1000-', 1000, SIZE - 1],
      ['a suffix (the last 500 bytes)', 'bytes=-500', SIZE - 500, SIZE - 1],
      ['a range whose end is past the last byte (clamped)', 'bytes=49000-999999', 49000, SIZE - 1],
      ['a suffix longer than the object (everything)', 'bytes=-999999', 0, SIZE - 1],
      ['a range with spaces and an upper-case unit', 'Bytes= 10-19 ', 10, 19],
    ])('answers 206 with exactly %s', async (_what, range, start, end) => {
      const res = await getVideo({ Range: range });
      expect(res.status).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${SIZE}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(res.headers).toMatchObject({ 'content-type': 'video/mp4', etag: stored.etag, 'accept-ranges': 'bytes' });
      expect(Buffer.compare(res.body as Buffer, video.subarray(start, end + 1))).toBe(0);
    });

    it('a browser-style seek (Range: bytes=1000-) returns the tail exactly', async () => {
      const res = await getVideo({ Range: 'bytes=1000-' });
      expect(res.status).toBe(206);
      expect((res.body as Buffer).equals(video.subarray(1000))).toBe(true);
    });

    it.each([
      ['starts at the size', `bytes=${SIZE}-`],
      ['starts past the size', `bytes=${SIZE + 10}-${SIZE + 20}`],
      ['is an empty suffix', 'bytes=-0'],
    ])('answers 416 with Content-Range bytes */size when the range %s', async (_what, range) => {
      const res = await request(app).get(`/media/${VIDEO_KEY}`).set('Range', range);
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${SIZE}`);
      expect(res.body).toEqual({ error: 'Range not satisfiable' });
    });

    it('answers 416 to any range of an empty object', async () => {
      const res = await request(app).get('/media/jobs/job_abc123/empty.bin').set('Range', 'bytes=0-');
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe('bytes */0');
    });

    it.each([
      ['several ranges', 'bytes=0-9,100-109'],
      ['another unit', 'items=0-9'],
      ['a malformed range', 'bytes=abc'],
      ['an end before the start', 'bytes=500-100'],
      ['no range at all', 'bytes='],
    ])('ignores %s and answers 200 with the whole object', async (_what, range) => {
      const res = await getVideo({ Range: range });
      expect(res.status).toBe(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(Buffer.compare(res.body as Buffer, video)).toBe(0);
    });

    it('ignores the Range of a HEAD request', async () => {
      const res = await request(app).head(`/media/${VIDEO_KEY}`).set('Range', 'bytes=0-9');
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe(String(SIZE));
      expect(res.headers['content-range']).toBeUndefined();
    });

    it('honours the Range when If-Range carries the current ETag', async () => {
      const res = await getVideo({ Range: 'bytes=0-9', 'If-Range': stored.etag });
      expect(res.status).toBe(206);
      expect((res.body as Buffer).length).toBe(10);
    });

    it('honours the Range when If-Range carries the current Last-Modified', async () => {
      expect((await getVideo({ Range: 'bytes=0-9', 'If-Range': stored.lastModified.toUTCString() })).status).toBe(206);
    });

    it('sends the whole object when If-Range carries a stale validator', async () => {
      const res = await getVideo({ Range: 'bytes=0-9', 'If-Range': '"stale"' });
      expect(res.status).toBe(200);
      expect((res.body as Buffer).length).toBe(SIZE);
    });
  });

  describe('streaming', () => {
    /** A storage holding one object whose bytes the test feeds by hand. */
    function handFedStorage(size: number) {
      const body = new PassThrough();
      const object: StoredObject = {
        key: 'a/b.mp4',
        size,
        etag: '"e"',
        contentType: 'video/mp4',
        lastModified: new Date(),
      };
      const notUsed = () => Promise.reject(new Error('not used by the route'));
      const fake: Storage = {
        driver: 'local',
        stat: async (key) => (key === object.key ? object : null),
        get: async () => body,
        put: notUsed,
        putFile: notUsed,
        delete: notUsed,
        deletePrefix: notUsed,
        check: notUsed,
      };
      return { fake, body };
    }

    async function listen(appToServe: Express): Promise<{ url: string; close(): Promise<void> }> {
      const server = http.createServer(appToServe);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    }

    it('sends the first bytes before storage has produced the rest', async () => {
      const { fake, body } = handFedStorage(8);
      const server = await listen(buildApp(fake));
      try {
        const firstChunk = new Promise<{ status: number; chunk: string; rest: Promise<string> }>((resolve, reject) => {
          http
            .get(`${server.url}/media/a/b.mp4`, (res) => {
              res.once('data', (chunk: Buffer) => {
                const rest = new Promise<string>((done) => {
                  let text = chunk.toString();
                  res.on('data', (more: Buffer) => (text += more.toString()));
                  res.on('end', () => done(text));
                });
                resolve({ status: res.statusCode ?? 0, chunk: chunk.toString(), rest });
              });
            })
            .on('error', reject);
        });
        body.write('1234'); // half the object; storage has not ended the stream
        const first = await firstChunk;
        expect(first).toMatchObject({ status: 200, chunk: '1234' });
        body.end('5678');
        expect(await first.rest).toBe('12345678');
      } finally {
        await server.close();
      }
    });

    it('stops reading storage when the client goes away mid-download', async () => {
      const { fake, body } = handFedStorage(1_000_000);
      const server = await listen(buildApp(fake));
      try {
        const closed = new Promise<void>((resolve) => body.once('close', () => resolve()));
        const req = http.get(`${server.url}/media/a/b.mp4`, (res) => {
          res.once('data', () => req.destroy());
        });
        req.on('error', () => undefined); // the abort we cause
        body.write(Buffer.alloc(1000));
        await closed;
        expect(body.destroyed).toBe(true);
      } finally {
        await server.close();
      }
    });

    it('answers 404 when the object disappears between its stat and its read', async () => {
      const { fake } = handFedStorage(8);
      const racing: Storage = { ...fake, get: async (key) => Promise.reject(new StorageNotFoundError(key)) };
      const res = await request(buildApp(racing)).get('/media/a/b.mp4');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
      expect(res.headers['cache-control']).toBeUndefined();
    });
  });
});
