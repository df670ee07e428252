import { createHash, randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { SubmitIdempotency } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { authOf } from './auth.middleware';
import { abortableSleep, acquireKey, type AcquireDeps } from '../core/idempotency/acquire';
import { releasesKey } from '../core/idempotency/decide';
import { requestFingerprint } from '../core/idempotency/fingerprint';
import { IDEMPOTENCY_KEY_HEADER, KEY_REUSED, REPLAYED_HEADER, idempotencyKeyOf } from '../core/idempotency/key-header';
import type { KeyStore } from '../core/idempotency/key-store';
import { persistBeforeSending } from './persist-before-sending';

export interface IdempotencyDeps {
  store: KeyStore;
  logger: Logger;
  ttlMs: number;
  /** The lease of a request to `path` (relative to the router's mount point). */
  leaseMs: (path: string) => number;
  /** Defaults suit production; tests pass a clock and a short poll. */
  pollMs?: number;
  now?: () => Date;
  sleep?: AcquireDeps['sleep'];
}

export const DEFAULT_POLL_MS = 75;

/**
 * What a route passes on to the service doing the work, so that service can recognise a retry
 * itself: a digest of the key and request (stable across a released and re-claimed key) and the
 * window it stays valid in. Undefined without an Idempotency-Key.
 */
export function forwardedIdempotency(res: Response): SubmitIdempotency | undefined {
  const forwarded = res.locals.idempotency as SubmitIdempotency | undefined;
  // Taking it is the route's promise that its service deduplicates: a 503 may then free the key.
  if (forwarded) res.locals.idempotencyForwarded = true;
  return forwarded;
}

/** Aborts when the client goes away before its response was sent. */
function clientGone(res: Response): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => ac.abort());
  return ac.signal;
}

/**
 * The Idempotency-Key header of every POST (docs/api-behaviour.md): the first request with a key
 * runs and its answer is stored; a retry with the same key and request replays that answer with
 * `Idempotent-Replayed: true`; the same key with another request is a 422. Mount it after
 * authentication and the body parser. Without the header, nothing changes.
 */
export function idempotency(deps: IdempotencyDeps): RequestHandler {
  const acquire: AcquireDeps = {
    store: deps.store,
    ttlMs: deps.ttlMs,
    pollMs: deps.pollMs ?? DEFAULT_POLL_MS,
    now: deps.now ?? (() => new Date()),
    sleep: deps.sleep ?? abortableSleep,
    newOwner: randomUUID,
  };
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const key = idempotencyKeyOf(req.header(IDEMPOTENCY_KEY_HEADER));
    if (key === null) return next();
    const { userId } = authOf(req);
    const request = {
      userId,
      key,
      fingerprint: requestFingerprint(req.method, req.originalUrl, req.body),
      leaseMs: deps.leaseMs(req.path),
    };
    const log = deps.logger.child({ idempotency_key: key, user_id: userId });
    const outcome = await acquireKey(acquire, request, clientGone(res));
    switch (outcome.kind) {
      case 'mismatch':
        throw KEY_REUSED();
      case 'abandoned':
        log.info('client left while waiting for the first request with its Idempotency-Key');
        return;
      case 'replay':
        res.setHeader(REPLAYED_HEADER, 'true');
        res.status(outcome.status).json(outcome.body);
        return;
      case 'run': {
        const lease = outcome.lease;
        const forwarded: SubmitIdempotency = {
          key: createHash('sha256').update(`${key}\n${request.fingerprint}`).digest('hex'),
          window_hours: Math.max(1, Math.ceil(deps.ttlMs / 3_600_000)),
        };
        res.locals.idempotency = forwarded;
        persistBeforeSending(res, {
          persist: async (status, body) => {
            if (releasesKey(status, res.locals.idempotencyForwarded === true)) return deps.store.release(lease);
            if (!(await deps.store.complete(lease, status, body)))
              log.warn({ status }, 'Idempotency-Key was taken over while this request ran; its answer is not stored');
          },
          onError: (err) => log.error({ err }, 'Idempotency-Key response could not be stored; sent anyway'),
          // Nothing replayable: free the key rather than make retries wait out the lease.
          onUncaptured: () =>
            void deps.store
              .release(lease)
              .catch((err: unknown) => log.error({ err }, 'Idempotency-Key release failed')),
        });
        next();
      }
    }
  };
}
