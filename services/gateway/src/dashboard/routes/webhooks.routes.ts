import { Router, type Request } from 'express';
import { clearWebhook, getWebhook, listWebhookDeliveries, sendTestWebhook, setWebhook } from '../../usecases/webhooks.usecase';
import { idParam, limitQuery, objectBody, stringField } from '../body';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { KEY_NOT_FOUND } from './keys.routes';

const keyId = (req: Request): number => idParam(req.params.id, KEY_NOT_FOUND);

/** The webhook of one of the user's keys, through the same use cases as the admin CLI. */
export function webhooksRoutes(deps: DashboardDeps): Router {
  const router = Router();
  const { db, bus } = deps;

  router.get('/keys/:id/webhook', async (req, res) => {
    res.json(await getWebhook(db, bus, keyId(req), sessionOf(req).userId));
  });

  router.put('/keys/:id/webhook', async (req, res) => {
    const url = stringField(objectBody(req.body), 'url', { max: 2048 });
    res.json(await setWebhook(db, bus, keyId(req), url, sessionOf(req).userId));
  });

  router.delete('/keys/:id/webhook', async (req, res) => {
    res.json(await clearWebhook(db, bus, keyId(req), sessionOf(req).userId));
  });

  router.get('/keys/:id/webhook/deliveries', async (req, res) => {
    const limit = limitQuery(req.query.limit, 'limit', 500);
    res.json(await listWebhookDeliveries(db, bus, keyId(req), limit, sessionOf(req).userId));
  });

  router.post('/keys/:id/webhook/test', async (req, res) => {
    res.json(await sendTestWebhook(db, bus, keyId(req), sessionOf(req).userId, deps.webhookTestTimeoutMs));
  });

  return router;
}
