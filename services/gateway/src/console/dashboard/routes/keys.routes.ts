import { Router } from 'express';
import { AppError } from '@mf/errors';
import { findKeyById, listKeysOfUser, type ApiKeyRow } from '../../../core/repositories/api-keys.repository';
import type { DashboardKeyLimits, KeyLimits } from '@mf/contracts';
import { createApiKey, revokeApiKey } from '../../../core/usecases/api-keys.usecase';
import { limitsOfKeys, setKeyLimits } from '../../../core/usecases/key-limits.usecase';
import { createKeyOf } from '../../../core/validation/dashboard.validators';
import { idParam } from '../id-param';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

export const KEY_NOT_FOUND = 'API key not found';

export interface KeyView {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Its limits and this month's counters; null when billing did not answer (listing keys must still work). */
  limits?: DashboardKeyLimits | null;
}

/** A key as the dashboard lists it: never its hash, never the full key. */
export function keyView(k: ApiKeyRow): KeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at ? k.last_used_at.toISOString() : null,
    revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
  };
}

const NO_LIMITS = { spend_limit: null, max_concurrent_jobs: null, spent_this_period: 0, active_jobs: 0 };

function limitsView(k: KeyLimits): DashboardKeyLimits {
  return {
    spend_limit: k.spend_limit,
    max_concurrent_jobs: k.max_concurrent_jobs,
    spent_this_period: k.spent_this_period,
    active_jobs: k.active_jobs,
  };
}

const limitsOrNull = (k: KeyLimits | undefined): DashboardKeyLimits | null => (k ? limitsView(k) : null);

/** The signed-in user's API keys: list, create (the full key shown once), revoke. */
export function keysRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.get('/keys', async (req, res) => {
    const userId = sessionOf(req).userId;
    const keys = await listKeysOfUser(deps.db, userId);
    const limits = await limitsOfKeys(
      deps.bus,
      userId,
      keys.map((k) => k.id),
    ).catch(() => null);
    reply(res, 'GET /keys', { keys: keys.map((k) => ({ ...keyView(k), limits: limitsOrNull(limits?.get(k.id)) })) });
  });

  router.post('/keys', async (req, res) => {
    const { name, scopes } = createKeyOf(req.body);
    const created = await createApiKey(deps.db, sessionOf(req).userId, scopes, name);
    const row = await findKeyById(deps.db, created.id);
    if (!row) throw AppError.internal();
    // A new key has no limits and has spent nothing: known without asking billing.
    reply(res, 'POST /keys', { key: { ...keyView(row), limits: NO_LIMITS }, secret_key: created.key }, 201);
  });

  router.put('/keys/:id/limits', async (req, res) => {
    const id = idParam(req.params.id, KEY_NOT_FOUND);
    const limits = await setKeyLimits(deps, id, req.body, sessionOf(req).userId);
    reply(res, 'PUT /keys/:id/limits', limitsView(limits));
  });

  router.delete('/keys/:id', async (req, res) => {
    const id = idParam(req.params.id, KEY_NOT_FOUND);
    reply(res, 'DELETE /keys/:id', await revokeApiKey(deps.db, deps.keyRevocations, id, sessionOf(req).userId));
  });

  return router;
}
