import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../../http/auth.middleware';
import { estimateCost } from '../../core/usecases/estimate.usecase';

/** POST /estimate: a submit's price, charging nothing (docs/api-behaviour.md "Cost estimate"). */
export function estimateRoutes(bus: Bus): Router {
  const router = Router();
  router.post('/estimate', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await estimateCost(bus, authOf(req), req.body, requestId(req)));
  });
  return router;
}
