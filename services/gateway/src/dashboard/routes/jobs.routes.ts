import { Router, type Request } from 'express';
import { jobsRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { JOB_ID } from '../../http/routes/jobs.routes';
import { limitQuery } from '../body';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';

function jobRef(req: Request): { user_id: number; job_id: string } {
  const id = req.params.id;
  // An id that cannot exist is the API's 404, without asking jobs.
  if (typeof id !== 'string' || !JOB_ID.test(id)) throw AppError.notFound('Job not found');
  return { user_id: sessionOf(req).userId, job_id: id };
}

function beforeQuery(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !JOB_ID.test(raw)) throw AppError.badRequest('before must be a job id');
  return raw;
}

/** The user's jobs (whatever key submitted them): list, one, cancel. */
export function jobsRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const opts = (req: Request) => ({ correlationId: requestId(req) });

  router.get('/jobs', async (req, res) => {
    const limit = limitQuery(req.query.limit, 'limit', 100);
    const before = beforeQuery(req.query.before);
    res.json(await deps.bus.rpc(jobsRpc, 'list', { user_id: sessionOf(req).userId, ...(limit ? { limit } : {}), ...(before ? { before } : {}) }, opts(req)));
  });

  router.get('/jobs/:id', async (req, res) => {
    res.json(await deps.bus.rpc(jobsRpc, 'get', jobRef(req), opts(req)));
  });

  router.delete('/jobs/:id', async (req, res) => {
    res.json(await deps.bus.rpc(jobsRpc, 'cancel', jobRef(req), opts(req)));
  });

  return router;
}
