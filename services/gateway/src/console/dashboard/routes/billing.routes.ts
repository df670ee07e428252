import { Router } from 'express';
import { requestId } from '@mf/http';
import { sendCsv } from '../../../http/csv-reply';
import { usageOfUser, writeUsageCsv } from '../../../core/reports/usage.usecase';
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

  // The usage page's figures, and its CSV download (format=csv: a link the browser saves).
  router.get('/usage', async (req, res) => {
    const { report, format } = await usageOfUser(deps.bus, sessionOf(req).userId, req.query, {
      correlationId: requestId(req),
    });
    if (format === 'csv') await sendCsv(res, 'usage.csv', (sink) => writeUsageCsv(report, sink));
    else reply(res, 'GET /usage', report);
  });

  return router;
}
