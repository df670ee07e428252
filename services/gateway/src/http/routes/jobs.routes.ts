import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { jobsRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { authOf } from '../auth.middleware';

/** The shape of a job id; anything else cannot exist. */
export const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;

/** GET and DELETE /jobs/:id: any key, owner check in jobs (another user's job is a 404). */
export function jobsRoutes(bus: Bus): Router {
  const router = Router();
  const jobId = (raw: string): string => {
    // An id that cannot exist is a 404 without asking anyone (and never reaches a query).
    if (!JOB_ID.test(raw)) throw AppError.notFound('Job not found');
    return raw;
  };
  router.get('/jobs/:id', async (req, res) => {
    const view = await bus.rpc(jobsRpc, 'get', { user_id: authOf(req).userId, job_id: jobId(req.params.id) }, { correlationId: requestId(req) });
    res.setHeader('Cache-Control', 'no-store');
    res.json(view);
  });
  router.delete('/jobs/:id', async (req, res) => {
    res.json(await bus.rpc(jobsRpc, 'cancel', { user_id: authOf(req).userId, job_id: jobId(req.params.id) }, { correlationId: requestId(req) }));
  });
  return router;
}
