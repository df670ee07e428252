import type client from 'prom-client';
import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { SafeFetchPolicy } from '@mf/safe-fetch';
import type { WebhookDispatcherConfig } from './config';
import { createWebhookPoster } from './delivery/webhook-poster';
import { parseSecretKey, SecretBox } from './domain/secret-box';
import { DeliveryLanes } from './lanes/delivery-lanes';
import { createLaneMetrics } from './lanes/lane-metrics';
import { consumeJobEvents } from './messaging/job-events.consumer';
import { consumeResends } from './messaging/resends.consumer';
import { serveWebhookOutbound } from './messaging/webhook-outbound-rpc.server';
import { serveWebhooksRpc } from './messaging/webhooks-rpc.server';
import type { EndpointsContext } from './usecases/context';
import { KeyedLock } from './usecases/keyed-lock';
import { runPendingAttempt, type PendingAttemptDeps } from './usecases/pending-attempt.usecase';

export interface DispatcherParts {
  config: WebhookDispatcherConfig;
  db: Knex;
  bus: Bus;
  logger: Logger;
  /** Where the lanes' series go (none: not exported, e.g. in tests that do not read them). */
  registry?: client.Registry;
}

export interface RunningLanes {
  lanes: DeliveryLanes;
  /** Stops claiming, lets the attempts in flight end until `until` (epoch ms), gives back the rest. */
  stop: (until: number) => Promise<void>;
}

/**
 * Serves the webhooks RPC, takes job events into the delivery lanes and starts the lanes:
 * main.ts and the tests wire it alike. Stop the lanes before the bus closes (their failed
 * attempts hand retries to the broker).
 */
export async function startDispatcher({ config, db, bus, logger, registry }: DispatcherParts): Promise<RunningLanes> {
  const policy: SafeFetchPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const secrets = new SecretBox(parseSecretKey(config.WEBHOOK_SECRET_KEY));
  const post = createWebhookPoster({ policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const now = (): number => Date.now();
  const attempts = { db, post, now, logger, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS };
  const lock = new KeyedLock();

  // The lanes' runs and the use cases' wake-ups refer to each other; neither is called before start().
  const lanes: DeliveryLanes = new DeliveryLanes(
    {
      db,
      logger,
      run: (item) => runPendingAttempt(pending, item),
      onSettled: (item, result) => metrics.settled.inc({ kind: item.kind, result }),
    },
    { endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY, maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT },
  );
  const metrics = createLaneMetrics(registry, db, () => lanes.active);
  const wakeLanes = (): void => lanes.kick();
  const tools: EndpointsContext = { ...attempts, secrets, lock, urlPolicy: policy, wakeLanes };
  const pending: PendingAttemptDeps = {
    delivery: { ...attempts, secrets, lock },
    tools,
    retries: {
      retryLater: (held) => bus.retryLater(held, config.WEBHOOK_RETRY_DELAYS_MS),
      deadLetter: (held) => bus.deadLetter(held),
    },
  };

  await serveWebhooksRpc(bus, tools);
  await serveWebhookOutbound(bus, tools, {
    perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
  await consumeResends(bus, { db, wakeLanes }, config.WEBHOOK_PREFETCH);
  await consumeJobEvents(
    bus,
    { db, wakeLanes },
    { prefetch: config.WEBHOOK_PREFETCH, retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS },
  );
  lanes.start();
  return { lanes, stop: (until) => lanes.stop(until) };
}
