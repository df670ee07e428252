import { Router, type Request, type RequestHandler } from 'express';
import { AppError } from '@mf/errors';
import { answerMethodNotAllowed, jsonBody } from '@mf/http';
import { refuseCrossOrigin, requireCsrfToken } from './csrf.middleware';
import { sameOriginMedia } from './same-origin-media';
import type { DashboardDeps } from './deps';
import { adminRoutes } from './routes/admin.routes';
import { publicAuthRoutes, sessionAuthRoutes, sessionProbeRoutes } from './routes/auth.routes';
import { billingRoutes } from './routes/billing.routes';
import { jobsRoutes } from './routes/jobs.routes';
import { keysRoutes } from './routes/keys.routes';
import { playgroundRoutes } from './routes/playground.routes';
import { projectsRoutes } from './routes/projects.routes';
import { studioRoutes } from './routes/studio.routes';
import { webhooksRoutes } from './routes/webhooks.routes';
import { webhookDeliveriesRoutes } from './routes/webhook-deliveries.routes';
import { loadSession, requireSession } from './session.middleware';

/** Dashboard bodies are small forms; nothing larger is ever needed. */
const BODY_LIMIT = '64kb';

/** The studio's upload (multipart POST /projects/:id/assets): its route streams the body itself. */
const UPLOAD_PATH = /^\/projects\/[^/]+\/assets\/?$/;
const isUpload = (req: Request): boolean =>
  req.method === 'POST' && UPLOAD_PATH.test(req.path) && Boolean(req.is('multipart/form-data'));
const unlessUpload =
  (handler: RequestHandler): RequestHandler =>
  (req, res, next) =>
    isUpload(req) ? next() : handler(req, res, next);

/**
 * /dashboard/api (docs/dashboard-api.md): the session cookie, never an API key. Cross-origin
 * writes are refused first; sign-up and sign-in need no session; everything else needs one, and
 * its writes the session's CSRF token.
 */
export function dashboardApiRouter(deps: DashboardDeps): Router {
  const router = Router();
  router.use((_req, res, next) => {
    // Answers carry API keys and signing secrets: no cache may keep them.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(
    refuseCrossOrigin(deps.publicBaseUrl),
    unlessUpload(jsonBody(BODY_LIMIT)),
    sameOriginMedia(deps.publicBaseUrl),
  );
  router.use(publicAuthRoutes(deps));
  router.use(loadSession(deps.sessions, deps.cookies));
  router.use(sessionProbeRoutes(deps));
  router.use(requireSession, requireCsrfToken);
  router.use(sessionAuthRoutes(deps));
  router.use(keysRoutes(deps));
  router.use(webhooksRoutes(deps));
  router.use(webhookDeliveriesRoutes(deps));
  router.use(billingRoutes(deps));
  router.use(jobsRoutes(deps));
  router.use(projectsRoutes(deps));
  router.use(studioRoutes(deps));
  router.use(playgroundRoutes(deps));
  router.use(adminRoutes(deps));
  answerMethodNotAllowed(router);
  // Unknown API paths end here, never in the single-page app's fallback mounted after us.
  router.use((_req, _res, next) => next(AppError.notFound('Not found')));
  return router;
}
