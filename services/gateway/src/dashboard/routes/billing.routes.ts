import { Router } from 'express';
import { billingRpc } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { limitQuery } from '../body';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';

function beforeIdQuery(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = typeof raw === 'string' ? raw : '';
  if (!/^\d{1,15}$/.test(s) || Number(s) < 1) throw AppError.badRequest('before_id must be a positive integer');
  return Number(s);
}

/** The user's credits and ledger, straight from billing. */
export function billingRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.get('/balance', async (req, res) => {
    res.json(await deps.bus.rpc(billingRpc, 'account', { user_id: sessionOf(req).userId }, { correlationId: requestId(req) }));
  });

  router.get('/ledger', async (req, res) => {
    const limit = limitQuery(req.query.limit, 'limit', 500);
    const beforeId = beforeIdQuery(req.query.before_id);
    const request = { user_id: sessionOf(req).userId, ...(limit ? { limit } : {}), ...(beforeId ? { before_id: beforeId } : {}) };
    res.json(await deps.bus.rpc(billingRpc, 'ledger', request, { correlationId: requestId(req) }));
  });

  return router;
}
