import type { RequestHandler } from 'express';
import { AppError } from '@mf/errors';

/**
 * A service listens before its routes are mounted, so /healthz can answer during start-up. Until
 * then every other request is a retryable 503: a 404 would tell a client "no such thing".
 */
export function startupGate(isReady: () => boolean): RequestHandler {
  return (_req, _res, next) =>
    next(isReady() ? undefined : AppError.unavailable('Service is starting, retry shortly', 1));
}
