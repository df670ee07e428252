import { Router } from 'express';
import type { FalEndpoints } from '@mf/catalog';
import { authOf } from '../../http/auth.middleware';
import { modelsJsonFor } from '../../core/usecases/list-models.usecase';

export function modelsRoutes(falEndpoints: FalEndpoints): Router {
  const modelsJson = modelsJsonFor(falEndpoints);
  return Router().get('/models', (req, res) => {
    // The same bytes and headers res.json would send, without serialising the catalog per request.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(modelsJson(authOf(req)));
  });
}
