import { Router, type Request } from 'express';
import { requestId } from '@mf/http';
import { cancelJobOf, getJobOf, jobAttemptsOf, listJobsOf } from '../../../core/usecases/jobs.usecase';
import { jobsQueryOf } from '../../../core/validation/dashboard.validators';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/** The user's jobs (whatever key submitted them): list, one, cancel. */
export function jobsRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const opts = (req: Request) => ({ correlationId: requestId(req) });

  router.get('/jobs', async (req, res) => {
    const { limit, before } = jobsQueryOf(req.query);
    reply(res, 'GET /jobs', await listJobsOf(deps.bus, sessionOf(req).userId, { limit, before }, opts(req)));
  });

  router.get('/jobs/:id', async (req, res) => {
    reply(res, 'GET /jobs/:id', await getJobOf(deps.bus, sessionOf(req).userId, req.params.id, opts(req)));
  });

  // The job's attempts on its provider routes (the API's GET /jobs/:id does not show them).
  router.get('/jobs/:id/attempts', async (req, res) => {
    reply(
      res,
      'GET /jobs/:id/attempts',
      await jobAttemptsOf(deps.bus, sessionOf(req).userId, req.params.id, opts(req)),
    );
  });

  router.delete('/jobs/:id', async (req, res) => {
    reply(res, 'DELETE /jobs/:id', await cancelJobOf(deps.bus, sessionOf(req).userId, req.params.id, opts(req)));
  });

  return router;
}
