import type { Request, RequestHandler } from 'express';
import type { UserRow } from '../../core/repositories/users.repository';
import { ADMINS_ONLY, NOT_SIGNED_IN } from '../../core/accounts/errors';
import { clearSessionCookie, sessionTokenOf, setSessionCookie, type CookiePolicy } from './session-cookie';
import type { SessionStore } from '../../core/accounts/session-store';

export interface DashboardSession {
  userId: number;
  role: UserRow['role'];
  csrfToken: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `loadSession` when the request's cookie names a live dashboard session. */
      session?: DashboardSession;
    }
  }
}

/**
 * Cookie -> req.session. A cookie naming no live session is cleared; a session whose expiry slid
 * forward gets its cookie again, so the browser's copy slides too.
 */
export function loadSession(store: SessionStore, policy: CookiePolicy): RequestHandler {
  return async (req, res, next) => {
    const token = sessionTokenOf(req);
    if (token === undefined) return next();
    const live = await store.resolve(token);
    if (!live) {
      clearSessionCookie(res, policy);
      return next();
    }
    if (live.refreshed) setSessionCookie(res, policy, token, store.ttlMs);
    req.session = { userId: live.userId, role: live.role, csrfToken: live.csrfToken };
    next();
  };
}

export const requireSession: RequestHandler = (req, _res, next) => next(req.session ? undefined : NOT_SIGNED_IN());

export const requireAdmin: RequestHandler = (req, _res, next) =>
  next(req.session?.role === 'admin' ? undefined : ADMINS_ONLY());

/** The session of a request behind `requireSession`. */
export function sessionOf(req: Request): DashboardSession {
  if (!req.session) throw NOT_SIGNED_IN();
  return req.session;
}
