import type { RequestHandler } from 'express';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { periodic } from '@mf/runtime';
import { idempotency } from './idempotency.middleware';
import { leaseFor, type RouteTimeouts } from '../core/idempotency/lease';
import { pgKeyStore } from '../core/idempotency/pg-key-store';

export { idempotency } from './idempotency.middleware';
export { pgKeyStore } from '../core/idempotency/pg-key-store';
export { leaseFor } from '../core/idempotency/lease';

/** Expired records are deleted this often, at most PURGE_BATCH per statement (again at once while there are more). */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 1000;

export interface IdempotencyOptions extends RouteTimeouts {
  db: Knex;
  logger: Logger;
  /** IDEMPOTENCY_TTL_HOURS: how long a key's answer is replayed. */
  ttlHours: number;
}

/** The /api/v1 middleware and the purge of expired records (stop it at shutdown). */
export function startIdempotency(opts: IdempotencyOptions): { middleware: RequestHandler; stop: () => Promise<void> } {
  const store = pgKeyStore(opts.db);
  const middleware = idempotency({
    store,
    logger: opts.logger,
    ttlMs: opts.ttlHours * 3_600_000,
    leaseMs: (path) => leaseFor(path, opts),
  });
  const purge = periodic(
    'idempotency key purge',
    PURGE_EVERY_MS,
    () => store.purgeExpired(new Date(), PURGE_BATCH),
    opts.logger,
  );
  return { middleware, stop: purge.stop };
}
