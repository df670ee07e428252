import { Router, type RequestHandler } from 'express';
import { AppError } from '@mf/errors';
import { requireScope } from '../auth.middleware';

/**
 * The contract's operations whose services arrive in later work. Their scope checks are live now
 * (a key without the scope gets 403 today, as it will then); past the check they answer 501 with a
 * clear message instead of a misleading 404. Each line is replaced by the real route when its
 * service lands.
 */
const PENDING: { method: 'get' | 'post' | 'delete'; path: string; scope?: string; feature: string }[] = [
  { method: 'post', path: '/media-studio/projects/:id/export', scope: 'video-editor:write', feature: 'video export' },
];

export function pendingRoutes(): Router {
  const router = Router();
  for (const p of PENDING) {
    const notYet: RequestHandler = (_req, _res, next) => next(new AppError(501, { error: `Not implemented yet: ${p.feature} is not available on this server version` }));
    const guards = p.scope ? [requireScope(p.scope)] : [];
    router[p.method](p.path, ...guards, notYet);
  }
  return router;
}
