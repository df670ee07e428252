import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../../http/auth.middleware';
import { cancelJob, getJob, listJobs } from '../../core/usecases/jobs.usecase';

// The dashboard's job routes share the id rule.
export { JOB_ID } from '../../core/usecases/jobs.usecase';

/** GET /jobs (jobs:read, own jobs only); GET and DELETE /jobs/:id: any key, owner check in jobs (another user's job is a 404). */
export function jobsRoutes(bus: Bus): Router {
  const router = Router();
  router.get('/jobs', async (req, res) => {
    const page = await listJobs(bus, authOf(req), req.query, { correlationId: requestId(req) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(page);
  });
  router.get('/jobs/:id', async (req, res) => {
    const view = await getJob(bus, authOf(req), req.params.id, { correlationId: requestId(req) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(view);
  });
  router.delete('/jobs/:id', async (req, res) => {
    res.json(await cancelJob(bus, authOf(req), req.params.id, { correlationId: requestId(req) }));
  });
  return router;
}
