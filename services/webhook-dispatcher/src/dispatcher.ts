import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { SafeFetchPolicy } from '@mf/safe-fetch';
import type client from 'prom-client';
import type { WebhookDispatcherConfig } from './config';
import { createWebhookPoster } from './delivery/webhook-poster';
import { parseSecretKey, SecretBox } from './domain/secret-box';
import { consumeJobEvents } from './messaging/job-events.consumer';
import { consumeResends, resendQueuer } from './messaging/resends.consumer';
import { serveWebhooksRpc } from './messaging/webhooks-rpc.server';
import { KeyedLock } from './usecases/keyed-lock';
import { createWebhookMetrics } from './webhook-metrics';

export interface DispatcherParts {
  config: WebhookDispatcherConfig;
  db: Knex;
  bus: Bus;
  logger: Logger;
  /** Where the dispatcher's series go (none: unregistered). */
  registry?: client.Registry;
}

/** Serves the webhooks RPC and starts delivering job events: main.ts and the tests wire it alike. */
export async function startDispatcher({ config, db, bus, logger, registry }: DispatcherParts): Promise<void> {
  const policy: SafeFetchPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const secrets = new SecretBox(parseSecretKey(config.WEBHOOK_SECRET_KEY));
  const post = createWebhookPoster({ policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const now = (): number => Date.now();
  const metrics = createWebhookMetrics(registry);
  const attempts = { db, post, now, logger, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS, metrics };
  const lock = new KeyedLock();
  const endpoints = { ...attempts, secrets, lock, urlPolicy: policy, queueResend: resendQueuer(bus) };
  await serveWebhooksRpc(bus, endpoints);
  await consumeResends(bus, endpoints, config.WEBHOOK_PREFETCH);
  await consumeJobEvents(
    bus,
    { ...attempts, secrets, lock },
    { prefetch: config.WEBHOOK_PREFETCH, retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS },
  );
}
