import { Router } from 'express';
import { requestId } from '@mf/http';
import { balanceOf, ledgerOf } from '../../../core/usecases/balance.usecase';
import { ledgerQueryOf } from '../../../core/validation/dashboard.validators';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { reply } from '../reply';

/** The user's credits and ledger, straight from billing. */
export function billingRoutes(deps: DashboardDeps): Router {
  const router = Router();

  router.get('/balance', async (req, res) => {
    const userId = sessionOf(req).userId;
    const onGrantFailure = (err: unknown) => req.log.warn({ err, userId }, 'sign-up credits still not granted');
    reply(
      res,
      'GET /balance',
      await balanceOf({ db: deps.db, bus: deps.bus, onGrantFailure, correlationId: requestId(req) }, userId),
    );
  });

  router.get('/ledger', async (req, res) => {
    const { limit, before_id: beforeId } = ledgerQueryOf(req.query);
    reply(res, 'GET /ledger', await ledgerOf(deps.bus, sessionOf(req).userId, { limit, beforeId }, requestId(req)));
  });

  return router;
}
