import { Router, type Request } from 'express';
import { requestId } from '@mf/http';
import { listProjectsOf, projectWithThreads } from '../../../core/usecases/editor.usecase';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/** The user's editor projects, read-only: the public list, and the state with every video's chat thread. */
export function projectsRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const opts = (req: Request) => ({ correlationId: requestId(req) });

  router.get('/projects', async (req, res) => {
    reply(res, 'GET /projects', await listProjectsOf(deps.bus, sessionOf(req).userId, opts(req)));
  });

  router.get('/projects/:id', async (req, res) => {
    reply(
      res,
      'GET /projects/:id',
      await projectWithThreads(deps.bus, sessionOf(req).userId, req.params.id, opts(req)),
    );
  });

  return router;
}
