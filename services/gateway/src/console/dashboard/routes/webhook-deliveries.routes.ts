import { Router, type Request } from 'express';
import { DELIVERY_STATUSES } from '@mf/contracts';
import { AppError } from '@mf/errors';
import {
  getKeyDelivery,
  recoverKeyDeliveries,
  resendKeyDelivery,
} from '../../../core/usecases/webhook-key-deliveries.usecase';
import { valid } from '../../../core/usecases/validated';
import { validateRecoverBody } from '../../../core/validation/webhook.validators';
import { idParam } from '../body';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { KEY_NOT_FOUND } from './keys.routes';

const DELIVERY_NOT_FOUND = 'Delivery not found';
const keyId = (req: Request): number => idParam(req.params.id, KEY_NOT_FOUND);
const deliveryId = (req: Request): number => idParam(req.params.deliveryId, DELIVERY_NOT_FOUND);

/** The status filter of the dashboard's delivery log: failed, succeeded, or all when absent. */
export function statusQuery(raw: unknown): 'failed' | 'succeeded' | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'failed' || raw === 'succeeded') return raw;
  throw AppError.badRequest(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
}

/** The page cursor of the delivery log: a delivery id (the attempts older than it). */
export function startingAfterQuery(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,14}$/.test(raw))
    throw AppError.badRequest('starting_after must be a delivery id (a positive integer)');
  return Number(raw);
}

/** The delivery detail, resend and recover of one of the user's keys. */
export function webhookDeliveriesRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const { db, bus } = deps;

  router.get('/keys/:id/webhook/deliveries/:deliveryId', async (req, res) => {
    res.json(await getKeyDelivery(db, bus, keyId(req), deliveryId(req), sessionOf(req).userId));
  });

  router.post('/keys/:id/webhook/deliveries/:deliveryId/resend', async (req, res) => {
    const id = keyId(req);
    const reply = await resendKeyDelivery(
      db,
      bus,
      id,
      deliveryId(req),
      sessionOf(req).userId,
      deps.webhookTestTimeoutMs,
    );
    res.status(202).json(reply);
  });

  router.post('/keys/:id/webhook/recover', async (req, res) => {
    const id = keyId(req);
    const { since } = valid(validateRecoverBody(req.body));
    res.status(202).json(await recoverKeyDeliveries(db, bus, id, new Date(since).toISOString(), sessionOf(req).userId));
  });

  return router;
}
