import client from 'prom-client';

/** The dispatcher's own series; their names and labels are what the alert rules and the dashboard query. */
export interface WebhookMetrics {
  /** Signed POSTs of real events (test sends aside), by result: delivered (2xx) or failed (anything else). */
  attempts: client.Counter<'result'>;
}

/** Creates the series on `registry` (none: unregistered, so tests can make many dispatchers). */
export function createWebhookMetrics(registry?: client.Registry): WebhookMetrics {
  return {
    attempts: new client.Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts of job events, by result: delivered (2xx) or failed (non-2xx answer or no answer)',
      labelNames: ['result'],
      registers: registry ? [registry] : [],
    }),
  };
}
