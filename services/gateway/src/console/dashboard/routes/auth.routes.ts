import { Router, type Request, type Response } from 'express';
import { answerMethodNotAllowed } from '@mf/http';
import { findUserById, type UserRow } from '../../../core/repositories/users.repository';
import { settleSignupCredits } from '../../../core/usecases/signup-credits.usecase';
import { checkCredentials, signUp, userView } from '../../../core/usecases/sign-in.usecase';
import { credentialsOf } from '../../../core/validation/dashboard.validators';
import type { DashboardDeps } from '../deps';
import { INVALID_CREDENTIALS, NOT_SIGNED_IN, tooManySignIns, tooManySignUps } from '../../../core/accounts/errors';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from '../session-cookie';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/** A fresh session for the user (any session the browser still had is ended: no fixation). */
async function startSession(deps: DashboardDeps, req: Request, res: Response, user: UserRow): Promise<string> {
  const previous = sessionTokenOf(req);
  if (previous !== undefined) await deps.sessions.destroy(previous);
  const s = await deps.sessions.create(user.id, req.header('user-agent'));
  setSessionCookie(res, deps.cookies, s.token, deps.sessions.ttlMs);
  return s.csrfToken;
}

/** Sign-up and sign-in: no session yet (the Origin check guards them). */
export function publicAuthRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.post('/signup', async (req, res) => {
    const { email, password } = credentialsOf(req.body);
    // req.ip is the client's address: the socket's, or the one a trusted proxy names (TRUST_PROXY).
    const waitSec = await deps.throttle.signUpAttempt(req.ip ?? '');
    if (waitSec > 0) throw tooManySignUps(waitSec);
    const user = await signUp(deps.db, email, password, deps.signupCredits);
    // Best effort: if billing does not confirm now, the overview's balance request grants it later.
    await settleSignupCredits(deps.db, deps.bus, user, (err) =>
      req.log.warn({ err, userId: user.id }, 'sign-up credits not granted yet; retried later'),
    );
    const csrf = await startSession(deps, req, res, user);
    reply(res, 'POST /signup', { user: userView(user), csrf_token: csrf }, 201);
  });

  router.post('/signin', async (req, res) => {
    const { email, password } = credentialsOf(req.body);
    const ip = req.ip ?? '';
    const waitSec = await deps.throttle.signInAttempt(email, ip);
    if (waitSec > 0) throw tooManySignIns(waitSec);
    const user = await checkCredentials(deps.db, email, password);
    if (!user) throw INVALID_CREDENTIALS();
    await deps.throttle.signInSucceeded(email, ip);
    const csrf = await startSession(deps, req, res, user);
    reply(res, 'POST /signin', { user: userView(user), csrf_token: csrf });
  });

  // Here, before the session is required: a GET of /signup is a 405, not "Not signed in".
  answerMethodNotAllowed(router);
  return router;
}

/**
 * GET /session: who is signed in, or `{session: null}` (200 either way), so the app's first look
 * at a signed-out browser is not an error in its console. Mounted after loadSession, before
 * requireSession.
 */
export function sessionProbeRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.get('/session', async (req, res) => {
    const user = req.session ? await findUserById(deps.db, req.session.userId) : undefined;
    const session = req.session && user ? { user: userView(user), csrf_token: req.session.csrfToken } : null;
    reply(res, 'GET /session', { session });
  });
  return router;
}

/** Who is signed in, and signing out. */
export function sessionAuthRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.get('/me', async (req, res) => {
    const session = sessionOf(req);
    const user = await findUserById(deps.db, session.userId);
    // The session outlived its user only between a delete and the cascade: treat it as gone.
    if (!user) throw NOT_SIGNED_IN();
    reply(res, 'GET /me', { user: userView(user), csrf_token: session.csrfToken });
  });

  router.post('/signout', async (req, res) => {
    const token = sessionTokenOf(req);
    if (token !== undefined) await deps.sessions.destroy(token);
    clearSessionCookie(res, deps.cookies);
    res.status(204).end();
  });

  return router;
}
