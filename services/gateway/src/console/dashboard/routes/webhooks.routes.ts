import { Router, type Request } from 'express';
import {
  clearWebhook,
  getWebhook,
  listWebhookDeliveries,
  sendTestWebhook,
  setWebhook,
  type WebhookTest,
} from '../../../core/usecases/webhooks.usecase';
import { sampleJobEvent } from '../../../core/usecases/webhook-samples';
import { deliveriesQueryOf, webhookTestOf, webhookUrlOf } from '../../../core/validation/dashboard.validators';
import { idParam } from '../id-param';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { KEY_NOT_FOUND } from './keys.routes';
import { reply } from '../reply';

const keyId = (req: Request): number => idParam(req.params.id, KEY_NOT_FOUND);

/** The webhook of one of the user's keys, through the same use cases as the admin CLI. */
export function webhooksRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const { db, bus } = deps;

  router.get('/keys/:id/webhook', async (req, res) => {
    reply(res, 'GET /keys/:id/webhook', await getWebhook(db, bus, keyId(req), sessionOf(req).userId));
  });

  router.put('/keys/:id/webhook', async (req, res) => {
    const { url } = webhookUrlOf(req.body);
    reply(res, 'PUT /keys/:id/webhook', await setWebhook(db, bus, keyId(req), url, sessionOf(req).userId));
  });

  router.delete('/keys/:id/webhook', async (req, res) => {
    reply(res, 'DELETE /keys/:id/webhook', await clearWebhook(db, bus, keyId(req), sessionOf(req).userId));
  });

  router.get('/keys/:id/webhook/deliveries', async (req, res) => {
    const { limit, ...filter } = deliveriesQueryOf(req.query);
    reply(
      res,
      'GET /keys/:id/webhook/deliveries',
      await listWebhookDeliveries(db, bus, keyId(req), limit, sessionOf(req).userId, filter),
    );
  });

  // Body optional: {event: "webhook.test" (default) | "job.completed" | "job.failed" | "job.cancelled"} (a sample job, marked as a test).
  router.post('/keys/:id/webhook/test', async (req, res) => {
    const id = keyId(req);
    const { event: name } = webhookTestOf(req.body);
    const test: WebhookTest =
      name === 'webhook.test'
        ? { event: name }
        : { event: name, sample: sampleJobEvent(name, deps.publicBaseUrl, deps.falEndpoints) };
    reply(
      res,
      'POST /keys/:id/webhook/test',
      await sendTestWebhook(db, bus, id, sessionOf(req).userId, deps.webhookTestTimeoutMs, test),
    );
  });

  return router;
}
