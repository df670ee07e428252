import { Router, type NextFunction, type Request, type Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { AppError } from '@mf/errors';
import { isValidKey, StorageNotFoundError, type ByteRange, type Storage, type StoredObject } from '@mf/storage';

/** Objects never change under a key (a new result gets a new key), so browsers and CDNs may keep them for good. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * GET and HEAD /media/<key>: generated media, straight from storage. Mounted at the root, outside
 * /api/v1 and without authentication: result URLs are unguessable capability URLs that must work in
 * a <video> or <img> tag, which sends no API key. Single byte ranges are honoured so players can seek.
 */
export function mediaRoutes(storage: Storage): Router {
  const router = Router();
  router.route('/media/*key').get(serve).head(serve);
  return router;

  async function serve(req: Request, res: Response, next: NextFunction): Promise<void> {
    const key = keyOf(req.params.key);
    const object = key ? await storage.stat(key) : null;
    if (!key || !object) return next(AppError.notFound());

    const validators = {
      ETag: object.etag,
      'Last-Modified': object.lastModified.toUTCString(),
      'Cache-Control': CACHE_CONTROL,
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
    };
    if (notModified(req, object)) {
      res.status(304).set(validators).end();
      return;
    }

    // RFC 9110 defines ranges for GET only; a HEAD answers as for the whole object.
    const range = req.method === 'GET' && ifRangeHolds(req, object) ? parseRange(req.headers.range, object.size) : null;
    if (range === 'unsatisfiable') {
      return next(
        new AppError('range_not_satisfiable', { error: 'Range not satisfiable' }, { resourceSize: object.size }),
      );
    }

    // Opened before any header is sent, so an object deleted since the stat still gets a clean 404
    // (and none of the long-lived cache headers).
    let body: NodeJS.ReadableStream | null = null;
    if (req.method === 'GET') {
      try {
        body = await storage.get(object.key, range ?? undefined);
      } catch (err) {
        if (err instanceof StorageNotFoundError) return next(AppError.notFound());
        return next(err);
      }
    }

    res.status(range ? 206 : 200);
    for (const [name, value] of Object.entries(validators)) res.setHeader(name, value);
    // setHeader, not res.type()/res.set(): express would append a charset to the stored type.
    res.setHeader('Content-Type', object.contentType);
    res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : object.size));
    if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
    if (!body) {
      res.end();
      return;
    }
    try {
      await pipeline(body, res); // streamed: a video is never held in memory
    } catch (err) {
      // The client went away (closed tab, seek): pipeline already destroyed the storage stream.
      if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      next(err); // headers are out: the error handler only logs it, the client sees a cut-off body
    }
  }
}

/** The key from express 5's wildcard (an array of decoded segments), or null when it is not a valid key. */
function keyOf(param: unknown): string | null {
  const segments = Array.isArray(param) ? param : [param];
  // A segment containing '/' came from an encoded %2F: not a path this route publishes.
  if (!segments.every((s): s is string => typeof s === 'string' && !s.includes('/'))) return null;
  const key = segments.join('/');
  return isValidKey(key) ? key : null;
}

/** HTTP dates have whole seconds; compare the stored time the way the client saw it. */
function lastModifiedSeconds(object: StoredObject): number {
  return Math.floor(object.lastModified.getTime() / 1000);
}

/** If-None-Match (weak comparison, lists, '*'); If-Modified-Since only when there is no If-None-Match. */
function notModified(req: Request, object: StoredObject): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === object.etag;
    });
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && lastModifiedSeconds(object) <= Math.floor(since / 1000);
}

/** If-Range: the Range applies only if the client's copy is still current (strong comparison). */
function ifRangeHolds(req: Request, object: StoredObject): boolean {
  const ifRange = req.get('if-range');
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === object.etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && Math.floor(date / 1000) === lastModifiedSeconds(object);
}

/**
 * One `bytes=` range, clamped to the object. Null means "ignore the header and send everything":
 * no header, another unit, several ranges (multipart/byteranges is not worth it for media players,
 * which ask for one), or a malformed one (RFC 9110 lets a server ignore those).
 */
function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = /^\s*bytes\s*=(.*)$/i.exec(header ?? '');
  if (!match) return null;
  const specs = match[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return null;
  const spec = specs[0];

  const fromTo = /^(\d+)-(\d*)$/.exec(spec);
  if (fromTo) {
    const start = Number(fromTo[1]);
    const end = fromTo[2] === '' ? size - 1 : Number(fromTo[2]);
    if (end < start && fromTo[2] !== '') return null; // "5-1" is invalid, not unsatisfiable
    if (start >= size) return 'unsatisfiable';
    return { start, end: Math.min(end, size - 1) };
  }
  const suffix = /^-(\d+)$/.exec(spec);
  if (suffix) {
    const length = Number(suffix[1]);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  return null;
}
