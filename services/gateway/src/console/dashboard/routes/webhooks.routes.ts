import { Router, type Request } from 'express';
import { TEST_EVENTS, type TestEventName } from '@mf/contracts';
import { AppError } from '@mf/errors';
import {
  clearWebhook,
  getWebhook,
  listWebhookDeliveries,
  sendTestWebhook,
  setWebhook,
  type WebhookTest,
} from '../../../core/usecases/webhooks.usecase';
import { sampleJobEvent } from '../../../core/usecases/webhook-samples';
import { idParam, limitQuery, objectBody, stringField } from '../body';
import type { DashboardDeps } from '../deps';
import { sessionOf } from '../session.middleware';
import { KEY_NOT_FOUND } from './keys.routes';
import { startingAfterQuery, statusQuery } from './webhook-deliveries.routes';

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
    const status = statusQuery(req.query.status);
    const startingAfter = startingAfterQuery(req.query.starting_after);
    const filter = { ...(status ? { status } : {}), ...(startingAfter ? { starting_after: startingAfter } : {}) };
    res.json(await listWebhookDeliveries(db, bus, keyId(req), limit, sessionOf(req).userId, filter));
  });

  // Body optional: {event: "webhook.test" (default) | "job.completed" | "job.failed" | "job.cancelled"} (a sample job, marked as a test).
  router.post('/keys/:id/webhook/test', async (req, res) => {
    const id = keyId(req);
    const event = req.body === undefined ? undefined : objectBody(req.body).event;
    if (event !== undefined && !(TEST_EVENTS as readonly unknown[]).includes(event))
      throw AppError.badRequest(`event must be one of ${TEST_EVENTS.join(', ')}`);
    const name = (event ?? 'webhook.test') as TestEventName;
    const test: WebhookTest =
      name === 'webhook.test'
        ? { event: name }
        : { event: name, sample: sampleJobEvent(name, deps.publicBaseUrl, deps.falEndpoints) };
    res.json(await sendTestWebhook(db, bus, id, sessionOf(req).userId, deps.webhookTestTimeoutMs, test));
  });

  return router;
}
