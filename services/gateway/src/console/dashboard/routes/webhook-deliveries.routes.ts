import { Router, type Request } from 'express';
import {
  getKeyDelivery,
  recoverKeyDeliveries,
  resendKeyDelivery,
} from '../../../core/usecases/webhook-key-deliveries.usecase';
import { valid } from '../../../core/usecases/validated';
import { validateRecoverBody } from '../../../core/validation/webhook.validators';
import { idParam } from '../id-param';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { KEY_NOT_FOUND } from './keys.routes';

const DELIVERY_NOT_FOUND = 'Delivery not found';
const keyId = (req: Request): number => idParam(req.params.id, KEY_NOT_FOUND);
const deliveryId = (req: Request): number => idParam(req.params.deliveryId, DELIVERY_NOT_FOUND);

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
