import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../auth.middleware';
import { cancelJob, getJob } from '../../usecases/jobs.usecase';

// The dashboard's job routes share the id rule.
export { JOB_ID } from '../../usecases/jobs.usecase';

/** GET and DELETE /jobs/:id: any key, owner check in jobs (another user's job is a 404). */
export function jobsRoutes(bus: Bus): Router {
  const router = Router();
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
