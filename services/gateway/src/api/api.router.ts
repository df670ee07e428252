import { Router, type RequestHandler } from 'express';
import type { Knex } from '@mf/db';
import { answerMethodNotAllowed, jsonBody } from '@mf/http';
import type { KeyCache } from '../core/auth/key-cache';
import type { AdapterDeps } from '../http/adapter-deps';
import { authenticate } from '../http/auth.middleware';
import { rateLimit } from '../http/rate-limit.middleware';
import { recordUsage } from '../http/usage.middleware';
import { operationHandlers } from './operations.handlers';
import { operationsRouter } from './operations.router';
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
}

/** /api/v1: authenticate, record usage, rate-limit, parse the body, Idempotency-Key, then the operations (operations/table.ts). */
export function apiRouter(deps: ApiDeps): Router {
  const api = Router();
  api.use(
    authenticate(deps.db, deps.keyCache),
    recordUsage(deps.usage),
    rateLimit(deps.limiter),
    jsonBody(deps.bodyLimit),
    deps.idempotency,
  );
  api.use(operationsRouter(operationHandlers(deps)));
  answerMethodNotAllowed(api);
  return api;
}
