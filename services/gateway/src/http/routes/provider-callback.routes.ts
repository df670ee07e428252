import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { jobsRpc } from '@mf/contracts';
import { jsonBody } from '@mf/http';

/**
 * Completion callbacks of upstream providers (fal's webhook). The URL carries a per-job token; the
 * body is not trusted, nor used (so not checked for hostile text): the call only makes jobs poll
 * the job now. Always 200 for a known route, so a provider never retries against us for our own
 * reasons.
 */
export function providerCallbackRoutes(bus: Bus): Router {
  return Router().post('/api/providers/callback/:jobId', jsonBody('2mb', { hostileTextChecks: false }), async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const jobId = String(req.params.jobId);
    if (/^job_[A-Za-z0-9]{1,64}$/.test(jobId) && token) {
      await bus.rpc(jobsRpc, 'providerCallback', { job_id: jobId, token }).catch(() => undefined);
    }
    res.json({ received: true });
  });
}
