import { Router } from 'express';
import type { Bus } from '@mf/bus';
import { requestId } from '@mf/http';
import { authOf } from '../../http/auth.middleware';
import {
  getDeliveryOf,
  listDeliveriesOf,
  recoverDeliveriesOf,
  resendDeliveryOf,
  sendWebhookTestOf,
  type WebhookTestDeps,
} from '../../core/usecases/webhook-deliveries.usecase';
import {
  deleteWebhookOf,
  getWebhookOf,
  putWebhookOf,
  rotateWebhookSecretOf,
} from '../../core/usecases/webhook-endpoint.usecase';

/** The key's webhook endpoint and its deliveries: list, detail, resend, recover, and test events (any active key, its own). */
export function webhookRoutes(bus: Bus, test: WebhookTestDeps): Router {
  const router = Router();
  const call = (req: Parameters<typeof requestId>[0]) => ({ correlationId: requestId(req) });
  router.put('/webhook', async (req, res) => {
    const { status, body } = await putWebhookOf(bus, authOf(req), req.body, {
      ...call(req),
      timeoutMs: test.timeoutMs,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.status(status).json(body);
  });
  router.get('/webhook', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await getWebhookOf(bus, authOf(req), call(req)));
  });
  router.delete('/webhook', async (req, res) => {
    res.json(await deleteWebhookOf(bus, authOf(req), call(req)));
  });
  router.post('/webhook/secret/rotate', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await rotateWebhookSecretOf(bus, authOf(req), req.body, call(req)));
  });
  router.get('/webhook/deliveries', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await listDeliveriesOf(bus, authOf(req), req.query, call(req)));
  });
  router.get('/webhook/deliveries/:id', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await getDeliveryOf(bus, authOf(req), req.params.id, call(req)));
  });
  router.post('/webhook/deliveries/:id/resend', async (req, res) => {
    const reply = await resendDeliveryOf(bus, authOf(req), req.params.id, { ...call(req), timeoutMs: test.timeoutMs });
    res.status(202).json(reply);
  });
  router.post('/webhook/recover', async (req, res) => {
    res.status(202).json(await recoverDeliveriesOf(bus, authOf(req), req.body, call(req)));
  });
  router.post('/webhook/test', async (req, res) => {
    res.json(await sendWebhookTestOf(bus, authOf(req), req.body, test, call(req)));
  });
  return router;
}
