import { Router } from 'express';
import type { FalEndpoints } from '@mf/catalog';
import { requireScope } from '../auth.middleware';
import { listModels } from '../../usecases/list-models.usecase';

export function modelsRoutes(falEndpoints: FalEndpoints): Router {
  const body = listModels(falEndpoints); // static for the life of the process
  return Router().get('/models', requireScope('models:read'), (_req, res) => {
    res.json(body);
  });
}
