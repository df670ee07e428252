import { Router, type Request } from 'express';
import { editorRpc, type ProjectRef } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { NOT_FOUND, PROJECT_ID } from '../../http/routes/editor.routes';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';

function projectRef(req: Request): ProjectRef {
  const id = req.params.id;
  if (typeof id !== 'string' || !PROJECT_ID.test(id)) throw AppError.notFound(NOT_FOUND.project);
  return { user_id: sessionOf(req).userId, project_id: id };
}

/** The user's editor projects, read-only: the public list, and the state with every video's chat thread. */
export function projectsRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const opts = (req: Request) => ({ correlationId: requestId(req) });

  router.get('/projects', async (req, res) => {
    res.json(await deps.bus.rpc(editorRpc, 'listProjects', { user_id: sessionOf(req).userId }, opts(req)));
  });

  router.get('/projects/:id', async (req, res) => {
    const ref = projectRef(req);
    const [state, { threads }] = await Promise.all([deps.bus.rpc(editorRpc, 'getProject', ref, opts(req)), deps.bus.rpc(editorRpc, 'threads', ref, opts(req))]);
    res.json({ ...state, threads });
  });

  return router;
}
