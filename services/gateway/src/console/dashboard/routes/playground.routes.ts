import { Router } from 'express';
import { DEFAULT_SCOPE, SCOPE_DESCRIPTIONS, SCOPES, TYPICAL_KEY_SCOPES, type ModelList } from '@mf/contracts';
import { requestId } from '@mf/http';
import { listModels } from '../../../core/usecases/list-models.usecase';
import { estimatePlayground } from '../../../core/usecases/estimate.usecase';
import { runPlayground } from '../../../core/usecases/playground.usecase';
import { playgroundOf } from '../../../core/validation/dashboard.validators';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/** Where the public API is described: the rendered reference and its OpenAPI document. */
export const API_REFERENCE = { reference_url: '/api/v1/reference', openapi_url: '/api/v1/openapi.json' };

/**
 * What the dashboard needs to know about this installation (onboarding, links), the model
 * catalog for the playground's form, and the playground's submit.
 */
export function playgroundRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.get('/installation', (_req, res) => {
    // The key form's choices: every scope, what it allows, and which a new key starts with.
    const scopes = SCOPES.map((name) => ({
      name,
      description: SCOPE_DESCRIPTIONS[name],
      always: name === DEFAULT_SCOPE,
      default: TYPICAL_KEY_SCOPES.includes(name),
    }));
    reply(res, 'GET /installation', { signup_credits: deps.signupCredits, ...API_REFERENCE, scopes });
  });

  router.get('/models', (_req, res) => {
    // The catalog's entries are the contract's Model (with readonly lists); the public API's answer,
    // the same body, is checked against the OpenAPI document, and this one against ModelList.
    reply(res, 'GET /models', listModels(deps.falEndpoints) as ModelList);
  });

  // {api_key_id: null | <one of the user's active keys>, input: <the public submit body>}
  router.post('/generate/:type', async (req, res) => {
    const opts = { submitTimeoutMs: deps.submitTimeoutMs, correlationId: requestId(req) };
    const userId = sessionOf(req).userId;
    const accepted = await runPlayground(deps.db, deps.bus, userId, req.params.type, playgroundOf(req.body), opts);
    reply(res, 'POST /generate/:type', accepted, 202);
  });

  // {api_key_id: null | <one of the user's active keys>, input: <the public estimate body>}: the run's price.
  router.post('/estimate', async (req, res) => {
    const userId = sessionOf(req).userId;
    reply(
      res,
      'POST /estimate',
      await estimatePlayground(deps.db, deps.bus, userId, playgroundOf(req.body), requestId(req)),
    );
  });

  return router;
}
