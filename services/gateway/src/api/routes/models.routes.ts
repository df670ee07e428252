import { Router } from 'express';
import type { FalEndpoints } from '@mf/catalog';
import { authOf } from '../../http/auth.middleware';
import { listModelsFor } from '../../core/usecases/list-models.usecase';

export function modelsRoutes(falEndpoints: FalEndpoints): Router {
  return Router().get('/models', (req, res) => {
    res.json(listModelsFor(authOf(req), falEndpoints));
  });
}
