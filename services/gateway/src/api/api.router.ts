import { Router, type RequestHandler } from 'express';
import type { Bus } from '@mf/bus';
import type { FalEndpoints } from '@mf/catalog';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { Storage } from '@mf/storage';
import { answerMethodNotAllowed, jsonBody } from '@mf/http';
import type { KeyCache } from '../core/auth/key-cache';
import type { RateLimiter } from '../core/ratelimit/rate-limiter';
import type { UsageRecorder } from '../core/usage/usage-recorder';
import { authenticate } from '../http/auth.middleware';
import { rateLimit } from '../http/rate-limit.middleware';
import { recordUsage } from '../http/usage.middleware';
import { accountRoutes } from './routes/account.routes';
import { modelsRoutes } from './routes/models.routes';
import { generateRoutes } from './routes/generate.routes';
import { jobsRoutes } from './routes/jobs.routes';
import { editorRoutes } from './routes/editor.routes';
import { editorUploadRoutes } from './routes/editor-upload.routes';
import { webhookRoutes } from './routes/webhook.routes';
import { estimateRoutes } from './routes/estimate.routes';
import { eventsRoutes } from './routes/events.routes';
import type { Streams } from './sse/streams';

export interface ApiDeps {
  db: Knex;
  bus: Bus;
  /** API key lookups reused until a revocation evicts them (core/auth/key-cache.ts). */
  keyCache: KeyCache;
  limiter: RateLimiter;
  usage: UsageRecorder;
  falEndpoints: FalEndpoints;
  bodyLimit: string;
  /** Media storage, where uploads are streamed. */
  storage: Storage;
  /** The largest upload (IMPORT_MAX_BYTES). */
  uploadMaxBytes: number;
  submitTimeoutMs: number;
  /** How long an editor instruct call may wait for the agent's turn. */
  instructTimeoutMs: number;
  exportTimeoutMs: number;
  /** For the webhook test event's sample URLs. */
  publicBaseUrl: string;
  /** Longest a webhook test or resend may take (longer than the dispatcher's WEBHOOK_TIMEOUT_MS). */
  webhookTestTimeoutMs: number;
  /** Idempotency-Key handling of POSTs (../idempotency): after the body parser, before the routes. */
  idempotency: RequestHandler;
  /** This replica's server-sent event streams (fed by the broker's job events). */
  streams: Streams;
  logger: Logger;
}

/** /api/v1: authenticate, record usage, rate-limit, parse the body, Idempotency-Key, then the routes. */
export function apiRouter(deps: ApiDeps): Router {
  const api = Router();
  api.use(
    authenticate(deps.db, deps.keyCache),
    recordUsage(deps.usage),
    rateLimit(deps.limiter),
    // Uploads are multipart and streamed: before the JSON parser, which refuses other types.
    editorUploadRoutes(deps.bus, { storage: deps.storage, maxBytes: deps.uploadMaxBytes }),
    jsonBody(deps.bodyLimit),
    deps.idempotency,
  );
  // The most frequent reads first: each router passed is a scan of its routes (no paths overlap).
  api.use(modelsRoutes(deps.falEndpoints));
  api.use(jobsRoutes(deps.bus));
  api.use(accountRoutes(deps.bus));
  api.use(estimateRoutes(deps.bus));
  api.use(generateRoutes(deps.bus, { submitTimeoutMs: deps.submitTimeoutMs }));
  api.use(eventsRoutes(deps.bus, deps.streams, deps.logger));
  api.use(editorRoutes(deps.bus, { instructTimeoutMs: deps.instructTimeoutMs, exportTimeoutMs: deps.exportTimeoutMs }));
  api.use(
    webhookRoutes(deps.bus, {
      publicBaseUrl: deps.publicBaseUrl,
      falEndpoints: deps.falEndpoints,
      timeoutMs: deps.webhookTestTimeoutMs,
    }),
  );
  answerMethodNotAllowed(api);
  return api;
}
