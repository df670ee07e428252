import type { Response } from 'express';
import type { DashboardReplies, DashboardRoute } from '@mf/contracts';

/**
 * Sends a route's success answer, typed as its contract says (@mf/contracts DashboardReplies): a
 * handler cannot answer a shape the dashboard does not expect without the type check noticing.
 */
export function reply<R extends DashboardRoute>(
  res: Response,
  _route: R,
  body: DashboardReplies[R],
  status = 200,
): void {
  res.status(status).json(body);
}
