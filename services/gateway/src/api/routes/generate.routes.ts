import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../../http/auth.middleware';
import { forwardedIdempotency } from '../../http/idempotency.middleware';
import { submitGeneration } from '../../core/usecases/generate.usecase';

/** How long a submit may take end to end (charge + provider submit). */
export interface GenerateOptions {
  submitTimeoutMs: number;
}

/** The two submit endpoints (202); the rules are submitGeneration's. */
export function generateRoutes(bus: Bus, opts: GenerateOptions): Router {
  const router = Router();
  router.post('/video/vidgen-2/generate', async (req, res) => {
    res.status(202).json(
      await submitGeneration(bus, authOf(req), 'video', req.body, {
        ...opts,
        correlationId: requestId(req),
        idempotency: forwardedIdempotency(res),
      }),
    );
  });
  router.post('/image/imagegen/generate', async (req, res) => {
    res.status(202).json(
      await submitGeneration(bus, authOf(req), 'image', req.body, {
        ...opts,
        correlationId: requestId(req),
        idempotency: forwardedIdempotency(res),
      }),
    );
  });
  return router;
}
