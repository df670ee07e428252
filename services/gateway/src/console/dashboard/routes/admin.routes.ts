import { Router } from 'express';
import { AppError } from '@mf/errors';
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

  return router;
}
