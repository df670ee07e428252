import { Router, type Request, type RequestHandler } from 'express';
import type { Knex } from '@mf/db';
import type { Storage } from '@mf/storage';
import { answerMethodNotAllowed, jsonBody } from '@mf/http';
import type { KeyCache } from '../core/auth/key-cache';
import type { AdapterDeps } from '../http/adapter-deps';
import { authenticate } from '../http/auth.middleware';
import { rateLimit } from '../http/rate-limit.middleware';
import { recordUsage } from '../http/usage.middleware';
import { operationHandlers } from './operations.handlers';
import { operationsRouter } from './operations.router';
import { expressPath, type Operation } from '../operations/operation';
import { OPERATIONS } from '../operations/table';
import type { Streams } from './sse/streams';

export interface ApiDeps extends AdapterDeps {
  db: Knex;
  /** API key lookups reused until a revocation evicts them (core/auth/key-cache.ts). */
  keyCache: KeyCache;
  /** Longest a webhook test or resend may take (longer than the dispatcher's WEBHOOK_TIMEOUT_MS). */
  webhookTestTimeoutMs: number;
  /** Idempotency-Key handling of POSTs (../idempotency): after the body parser, before the routes. */
  idempotency: RequestHandler;
  /** This replica's server-sent event streams (fed by the broker's job events). */
  streams: Streams;
  /** Media storage, where uploads are streamed. */
  storage: Storage;
  /** The largest upload (IMPORT_MAX_BYTES): 413 past it. */
  uploadMaxBytes: number;
}

/** The operations that take a multipart upload, as express path matchers. */
const UPLOAD_ROUTES = (OPERATIONS as readonly Operation[])
  .filter((o) => o.upload)
  .map((o) => {
    const pattern = expressPath(o.path).replace(/:\w+/g, '[^/]+');
    return { method: o.method.toUpperCase(), path: new RegExp(`^${pattern}/?$`) };
  });

/** A multipart request to an upload operation: its handler streams the body itself. */
function isUpload(req: Request): boolean {
  return (
    Boolean(req.is('multipart/form-data')) &&
    UPLOAD_ROUTES.some((r) => r.method === req.method && r.path.test(req.path))
  );
}

/** Runs `handler` except for an upload (its body is a stream, not JSON to parse or replay). */
export const unlessUpload =
  (handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    isUpload(req) ? next() : handler(req, res, next);

/** /api/v1: authenticate, record usage, rate-limit, parse the body, Idempotency-Key, then the operations (operations/table.ts). */
export function apiRouter(deps: ApiDeps): Router {
  const api = Router();
  api.use(
    authenticate(deps.db, deps.keyCache),
    recordUsage(deps.usage),
    rateLimit(deps.limiter),
    unlessUpload(jsonBody(deps.bodyLimit)),
    unlessUpload(deps.idempotency),
  );
  api.use(operationsRouter(operationHandlers(deps)));
  answerMethodNotAllowed(api);
  return api;
}
