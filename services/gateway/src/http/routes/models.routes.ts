import { Router } from 'express';
import type { FalEndpoints } from '@mf/catalog';
import { authOf } from '../auth.middleware';
import { listModelsFor } from '../../usecases/list-models.usecase';

export function modelsRoutes(falEndpoints: FalEndpoints): Router {
  return Router().get('/models', (req, res) => {
    res.json(listModelsFor(authOf(req), falEndpoints));
  });
}
