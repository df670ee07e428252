import { randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import { Bus } from '@mf/bus';
import { jobEvents, QUEUES, webhookOutboundRpc, type JobEventPayload } from '@mf/contracts';
import { createDb, migrate, type Knex } from '@mf/db';
import { createRegistry } from '@mf/runtime';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../../migrations';
import { loadWebhookDispatcherConfig } from '../../src/config';
import { startDispatcher } from '../../src/dispatcher';
import type { DeliveryLanes } from '../../src/lanes/delivery-lanes';

type Registry = ReturnType<typeof createRegistry>;
export type JobEventName = keyof typeof jobEvents;

/** The dispatcher's own Bus, serving RPC and consuming, and its delivery lanes, as main.ts wires them. */
export interface RunningDispatcher {
  bus: Bus;
  lanes: DeliveryLanes;
  /** Messages of a queue (job events unless said) this Bus has finished with (any outcome unless said). */
  handled: (outcome?: string, queue?: string) => Promise<number>;
  /**
   * Pending attempts this dispatcher's lanes ran to an end, by kind (`event`, `resend`) and result
   * (`ack`, `scheduled`, `dead-lettered`, `sent`, `skipped`, ...), any unless said.
   */
  settled: (kind?: string, result?: string) => Promise<number>;
  close: () => Promise<void>;
}

export interface Harness {
  env: TestEnv;
  db: Knex;
  /** Another service's Bus: publishes job events (as jobs does) and calls the RPC (as the gateway does). */
  client: Bus;
  startDispatcher: (env?: Record<string, string>) => Promise<RunningDispatcher>;
  /** Attempts waiting in the delivery lanes or being made (0: every accepted event was attempted). */
  pending: () => Promise<number>;
  close: () => Promise<void>;
}

/** A fresh database and vhost, the webhooks schema migrated, and a client Bus. */
export async function startHarness(): Promise<Harness> {
  const env = await freshTestEnv();
  const db = createDb({ url: env.databaseUrl, schema: 'webhooks', poolMax: 10 });
  await migrate(db, 'webhooks', migrations);
  const logger = silentLogger();
  const client = new Bus({ url: env.amqpUrl, service: 'jobs', logger, rpcTimeoutMs: 15_000 });
  await client.start();
  const running = new Set<RunningDispatcher>();

  const start = async (overrides: Record<string, string> = {}): Promise<RunningDispatcher> => {
    const config = loadWebhookDispatcherConfig({
      DATABASE_URL: env.databaseUrl,
      AMQP_URL: env.amqpUrl,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...overrides,
    });
    const registry = createRegistry('webhook-dispatcher');
    const bus = new Bus({ url: env.amqpUrl, service: 'webhook-dispatcher', logger, registry });
    await bus.start();
    const started = await startDispatcher({ config, db, bus, logger, registry });
    const dispatcher: RunningDispatcher = {
      bus,
      lanes: started.lanes,
      handled: (outcome, queue) => handledCount(registry, outcome, queue),
      settled: (kind, result) =>
        counted(
          registry,
          'webhook_attempts_settled_total',
          (l) => (!kind || l.kind === kind) && (!result || l.result === result),
        ),
      close: async () => {
        running.delete(dispatcher);
        await started.stop(Date.now() + 5000);
        await bus.close();
      },
    };
    running.add(dispatcher);
    return dispatcher;
  };

  return {
    env,
    db,
    client,
    startDispatcher: start,
    pending: async () => {
      const [{ n }] = await db('pending_attempts').count<{ n: number }[]>('* as n');
      return Number(n);
    },
    close: async () => {
      for (const d of [...running]) await d.close();
      await client.close();
      await db.destroy();
      await env.teardown();
    },
  };
}

function handledCount(registry: Registry, outcome?: string, queue: string = QUEUES.webhooksJobEvents): Promise<number> {
  return counted(
    registry,
    'bus_messages_handled_total',
    (l) => l.queue === queue && (outcome === undefined || l.outcome === outcome),
  );
}

/** The sum of a counter's series whose labels pass `match`. */
async function counted(
  registry: Registry,
  name: string,
  match: (labels: Record<string, string | number | undefined>) => boolean,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => match(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

/** Saves a webhook URL for a key through the RPC, as the admin CLI does; returns the new secret. */
export async function setWebhook(client: Bus, apiKeyId: number, userId: number, url: string): Promise<string> {
  const reply = await client.rpc(webhookOutboundRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: userId, url });
  if (!reply.secret) throw new Error('expected a new signing secret');
  return reply.secret;
}

/** Event-log ids as the outbox relay gives them (`evt_` and 16 digits), unique within a run. */
let lastEventSeq = Date.now() * 1000;
export const nextEventId = (): string => `evt_${String(++lastEventSeq).padStart(16, '0')}`;

export function jobEventPayload(
  overrides: Partial<JobEventPayload> & Pick<JobEventPayload, 'api_key_id' | 'user_id'>,
): JobEventPayload {
  return {
    job_id: `job_${randomUUID()}`,
    status: 'completed',
    model_id: 'vidgen-2.0',
    upstream_model: 'fal-ai/vidgen-2/text-to-video',
    type: 'video',
    credits_consumed: 120,
    created_at: '2025-01-02T03:04:05.000Z',
    completed_at: '2025-01-02T03:05:05.000Z',
    result: { video: 'https://media.test/media/out.mp4' },
    error: null,
    event_id: nextEventId(),
    ...overrides,
  };
}

/**
 * Publishes a job event as the jobs outbox relay does; returns its event id: the payload's event-log
 * id, or the message id for an event without one (relayed before the log had ids).
 */
export async function publishJobEvent(
  client: Bus,
  name: JobEventName,
  payload: JobEventPayload,
  messageId: string = randomUUID(),
): Promise<string> {
  await client.publishEvent(jobEvents[name], payload, { messageId });
  return payload.event_id ?? messageId;
}

/** Polls until the check passes (generous bounds: a loaded machine is slow, never wrong). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Reads a queue straight from the broker: how many messages it holds, and takes them out. */
export async function withBrokerChannel<T>(env: TestEnv, fn: (channel: amqp.Channel) => Promise<T>): Promise<T> {
  const conn = await amqp.connect(env.amqpUrl);
  try {
    const channel = await conn.createChannel();
    return await fn(channel);
  } finally {
    await conn.close();
  }
}

export async function queueDepth(env: TestEnv, queue: string): Promise<number> {
  return withBrokerChannel(env, async (ch) => (await ch.checkQueue(queue)).messageCount);
}
