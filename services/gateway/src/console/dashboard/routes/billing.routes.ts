import { Router } from 'express';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { balanceOf, ledgerOf } from '../../../core/usecases/balance.usecase';
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
    const userId = sessionOf(req).userId;
    const onGrantFailure = (err: unknown) => req.log.warn({ err, userId }, 'sign-up credits still not granted');
    res.json(await balanceOf({ db: deps.db, bus: deps.bus, onGrantFailure, correlationId: requestId(req) }, userId));
  });

  router.get('/ledger', async (req, res) => {
    const limit = limitQuery(req.query.limit, 'limit', 500);
    const beforeId = beforeIdQuery(req.query.before_id);
    res.json(await ledgerOf(deps.bus, sessionOf(req).userId, { limit, beforeId }, requestId(req)));
  });

  return router;
}
