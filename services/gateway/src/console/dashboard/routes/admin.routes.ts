import { Router } from 'express';
import { AppError } from '@mf/errors';
import { findUserById, searchUsers } from '../../../core/repositories/users.repository';
import { grantCredits } from '../../../core/usecases/users.usecase';
import { idParam, objectBody } from '../body';
import type { DashboardDeps } from '../deps';
import { requireAdmin } from '../session.middleware';

export const USER_NOT_FOUND = 'User not found';
/** The most users one search shows. */
export const USERS_SHOWN = 100;
/** A client-chosen key that makes a grant idempotent (the dashboard sends a UUID per grant). */
const GRANT_KEY = /^[A-Za-z0-9-]{8,64}$/;
/** billing's largest single grant (its contract). */
const MAX_GRANT = 1_000_000_000;

/** Admins only: find users, grant them credits. */
export function adminRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use('/admin', requireAdmin);

  router.get('/admin/users', async (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.trim() : '';
    const users = await searchUsers(deps.db, email.slice(0, 320), USERS_SHOWN);
    res.json({
      users: users.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString() })),
    });
  });

  router.post('/admin/users/:id/credits', async (req, res) => {
    const user = await findUserById(deps.db, idParam(req.params.id, USER_NOT_FOUND));
    if (!user) throw AppError.notFound(USER_NOT_FOUND);
    const { amount, idempotency_key: key } = objectBody(req.body);
    if (typeof amount === 'number' && amount > MAX_GRANT)
      throw AppError.badRequest(`amount must be at most ${MAX_GRANT}`);
    if (key !== undefined && (typeof key !== 'string' || !GRANT_KEY.test(key)))
      throw AppError.badRequest('idempotency_key must be 8-64 letters, digits or dashes');
    // One ledger reference per grant the admin meant: a retried or double-sent form grants once.
    const reference = key === undefined ? undefined : `grant:admin-${user.id}-${key}`;
    // grantCredits checks the amount is a positive integer (the admin CLI's rule).
    res.json({ credits_remaining: await grantCredits(deps.bus, user.id, amount as number, reference, 'admin grant') });
  });

  return router;
}
