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
import { reply } from '../reply';

const DELIVERY_NOT_FOUND = 'Delivery not found';
const keyId = (req: Request): number => idParam(req.params.id, KEY_NOT_FOUND);
const deliveryId = (req: Request): number => idParam(req.params.deliveryId, DELIVERY_NOT_FOUND);

/** The delivery detail, resend and recover of one of the user's keys. */
export function webhookDeliveriesRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const { db, bus } = deps;

  router.get('/keys/:id/webhook/deliveries/:deliveryId', async (req, res) => {
    reply(
      res,
      'GET /keys/:id/webhook/deliveries/:deliveryId',
      await getKeyDelivery(db, bus, keyId(req), deliveryId(req), sessionOf(req).userId),
    );
  });

  router.post('/keys/:id/webhook/deliveries/:deliveryId/resend', async (req, res) => {
    const id = keyId(req);
    const resent = await resendKeyDelivery(
      db,
      bus,
      id,
      deliveryId(req),
      sessionOf(req).userId,
      deps.webhookTestTimeoutMs,
    );
    reply(res, 'POST /keys/:id/webhook/deliveries/:deliveryId/resend', resent, 202);
  });

  router.post('/keys/:id/webhook/recover', async (req, res) => {
    const id = keyId(req);
    const { since } = valid(validateRecoverBody(req.body));
    const queued = await recoverKeyDeliveries(db, bus, id, new Date(since).toISOString(), sessionOf(req).userId);
    reply(res, 'POST /keys/:id/webhook/recover', queued, 202);
  });

  return router;
}
