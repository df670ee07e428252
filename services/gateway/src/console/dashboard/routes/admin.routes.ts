import { Router } from 'express';
import { AppError } from '@mf/errors';
import { requestId } from '@mf/http';
import { sendCsv } from '../../../http/csv-reply';
import { validateOperatorReportQuery } from '../../../core/reports/operator-report-query';
import { operatorReport, writeOperatorReportCsv } from '../../../core/reports/operator-report.usecase';
import { valid } from '../../../core/usecases/validated';
import { findUserById, searchUsers } from '../../../core/repositories/users.repository';
import { grantCredits } from '../../../core/usecases/users.usecase';
import { adminGrantOf, adminUsersQueryOf } from '../../../core/validation/dashboard.validators';
import { idParam } from '../id-param';
import type { DashboardDeps } from '../deps';
import { requireAdmin } from '../session.middleware';
import { reply } from '../reply';

export const USER_NOT_FOUND = 'User not found';
/** The most users one search shows. */
export const USERS_SHOWN = 100;

/** Admins only: find users, grant them credits. */
export function adminRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use('/admin', requireAdmin);

  router.get('/admin/users', async (req, res) => {
    const { email = '' } = adminUsersQueryOf(req.query);
    const users = await searchUsers(deps.db, email, USERS_SHOWN);
    reply(res, 'GET /admin/users', {
      users: users.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString() })),
    });
  });

  router.post('/admin/users/:id/credits', async (req, res) => {
    const user = await findUserById(deps.db, idParam(req.params.id, USER_NOT_FOUND));
    if (!user) throw AppError.notFound(USER_NOT_FOUND);
    // idempotency_key: client-chosen (the dashboard sends a UUID per grant).
    const { amount, idempotency_key: key } = adminGrantOf(req.body);
    // One ledger reference per grant the admin meant: a retried or double-sent form grants once.
    const reference = key === undefined ? undefined : `grant:admin-${user.id}-${key}`;
    const credits = await grantCredits(deps.bus, user.id, amount, reference, 'admin grant');
    reply(res, 'POST /admin/users/:id/credits', { credits_remaining: credits });
  });

  // The operator's usage report (as `admin usage:report`); format=csv is its download.
  router.get('/admin/usage-report', async (req, res) => {
    const ask = valid(validateOperatorReportQuery(req.query));
    const report = await operatorReport(deps, ask, deps.creditValueUsd, { correlationId: requestId(req) });
    if (ask.format === 'csv')
      await sendCsv(res, `usage-report-by-${ask.by}.csv`, (sink) => writeOperatorReportCsv(report, sink));
    else reply(res, 'GET /admin/usage-report', report);
  });

  return router;
}
