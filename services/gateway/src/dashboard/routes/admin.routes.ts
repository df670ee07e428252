import { Router } from 'express';
import { AppError } from '@mf/errors';
import { findUserById, searchUsers } from '../../repositories/users.repository';
import { grantCredits } from '../../usecases/users.usecase';
import { idParam, objectBody } from '../body';
import type { DashboardDeps } from '../deps';
import { requireAdmin } from '../session.middleware';

export const USER_NOT_FOUND = 'User not found';
/** The most users one search shows. */
export const USERS_SHOWN = 100;
/** billing's largest single grant (its contract). */
const MAX_GRANT = 1_000_000_000;

/** Admins only: find users, grant them credits. */
export function adminRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use('/admin', requireAdmin);

  router.get('/admin/users', async (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.trim() : '';
    const users = await searchUsers(deps.db, email.slice(0, 320), USERS_SHOWN);
    res.json({ users: users.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString() })) });
  });

  router.post('/admin/users/:id/credits', async (req, res) => {
    const user = await findUserById(deps.db, idParam(req.params.id, USER_NOT_FOUND));
    if (!user) throw AppError.notFound(USER_NOT_FOUND);
    const { amount } = objectBody(req.body);
    if (typeof amount === 'number' && amount > MAX_GRANT) throw AppError.badRequest(`amount must be at most ${MAX_GRANT}`);
    // grantCredits checks the amount is a positive integer (the admin CLI's rule).
    res.json({ credits_remaining: await grantCredits(deps.bus, user.id, amount as number, undefined, 'admin grant') });
  });

  return router;
}
