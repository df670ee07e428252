import type { Request, RequestHandler } from 'express';
import { CSRF_REFUSED } from '../../core/accounts/errors';
import { sameSecret } from '../../core/accounts/secrets';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isStateChanging(req: Request): boolean {
  return STATE_CHANGING.has(req.method);
}

/**
 * Refuses a state-changing request a browser sent from another origin: its Origin is neither the
 * public base URL's nor the request's own. Requests without Origin (curl, old browsers on a
 * same-origin form) pass: the synchroniser token still guards everything behind the session.
 */
export function refuseCrossOrigin(publicBaseUrl: string): RequestHandler {
  const publicOrigin = new URL(publicBaseUrl).origin;
  return (req, _res, next) => {
    if (!isStateChanging(req)) return next();
    // Fetch metadata: a browser's own statement that the request comes from another site.
    const site = req.header('sec-fetch-site');
    if (site === 'cross-site' || site === 'same-site') return next(CSRF_REFUSED());
    const origin = req.header('origin');
    if (origin === undefined) return next();
    const ownOrigin = `${req.protocol}://${req.get('host') ?? ''}`;
    next(origin === publicOrigin || origin === ownOrigin ? undefined : CSRF_REFUSED());
  };
}

/** The synchroniser token: a state-changing request repeats its session's token in X-CSRF-Token. */
export const requireCsrfToken: RequestHandler = (req, _res, next) => {
  if (!isStateChanging(req)) return next();
  const given = req.header('x-csrf-token');
  const expected = req.session?.csrfToken;
  next(given && expected && sameSecret(given, expected) ? undefined : CSRF_REFUSED());
};
