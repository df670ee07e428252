import { MODELS, type FalEndpoints } from '@mf/catalog';
import { scopeOf } from '../../operations/table';
import { assertScope, type AuthContext } from '../auth/auth-context';

/** The models body: every catalog entry with its upstream endpoint map from configuration. */
export function listModels(falEndpoints: FalEndpoints): { models: unknown[] } {
  return {
    models: MODELS.map((m) => ({
      id: m.id,
      type: m.type,
      name: m.name,
      provider: m.provider,
      description: m.description,
      capabilities: m.capabilities,
      submit_endpoint: m.submit_endpoint,
      fal_endpoints: falEndpoints[m.id],
      params: m.params,
      credits: m.credits,
    })),
  };
}

/** GET /models for a caller: needs models:read (on every key unless removed). */
export function listModelsFor(auth: AuthContext, falEndpoints: FalEndpoints): { models: unknown[] } {
  assertScope(auth, scopeOf('listModels'));
  return listModels(falEndpoints);
}

/**
 * GET /models as JSON text, serialised once: the body depends on the catalog and configuration
 * only, so no request pays for building and stringifying it. Its scope (models:read) is the
 * operation table's, checked by the router before the handler runs.
 */
export function modelsJsonFor(falEndpoints: FalEndpoints): Buffer {
  return Buffer.from(JSON.stringify(listModels(falEndpoints)));
}
