import type { Channel, ConsumeMessage } from 'amqplib';
import { deadLetterExchange, delayQueue, envelopeSchema, EXCHANGES, type Envelope } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { decode } from './codec';
import { closeCancelled, type Attach } from './connection';
import { safeAck, safeNack, type DeliveryDeps } from './deliveries';
import type { Publisher } from './publisher';
import { assertDeadLetterQueue, durableQueue } from './topology';
import { heldMessage, publishRetry } from './retries';
import type { ConsumerSpec, EventHandler, HandlerOutcome, HeldMessage } from './types';

/** amqplib types a message's headers as `any`; they are whatever the publisher set. */
function headersOf(msg: ConsumeMessage): Record<string, unknown> {
  const headers: unknown = msg.properties.headers;
  return headers && typeof headers === 'object' ? (headers as Record<string, unknown>) : {};
}

/**
 * Consumes events from a durable queue bound to the events exchange. Invalid messages and
 * messages whose retries are exhausted go to `<queue>.dlq`; retries wait in per-delay TTL queues
 * held by the broker, so a restart loses no scheduled retry.
 */
export function eventConsumer(spec: ConsumerSpec, publisher: Publisher, deps: DeliveryDeps): Attach {
  const { queue } = spec;
  const delays = spec.retryDelaysMs ?? [];
  const durable = durableQueue(deps.quorumQueues);

  /** Validates the envelope and payload, then runs the handler; anything malformed is dead. */
  const decide = async (
    msg: ConsumeMessage,
    held: HeldMessage,
    logger: Logger,
  ): Promise<{ outcome: HandlerOutcome; type: string }> => {
    let type = 'invalid';
    try {
      const parsed = decode(msg.content);
      const { error } = envelopeSchema.validate(parsed);
      if (error) throw new Error(`invalid envelope: ${error.message}`);
      const env = parsed as Envelope<unknown>;
      type = env.type;
      const handler = spec.handlers[msg.fields.routingKey] as EventHandler<unknown> | undefined;
      if (!handler) throw new Error(`no handler for routing key ${msg.fields.routingKey}`);
      const checked = handler.def.schema.validate(env.payload, { convert: false });
      if (checked.error) throw new Error(`invalid ${type} payload: ${checked.error.message}`);
      try {
        const ctx = { logger, envelope: env, attempt: held.attempt, message: held };
        return { outcome: await handler.handle(checked.value, ctx), type };
      } catch (err) {
        logger.error({ err }, 'event handler threw; scheduling a retry');
        return { outcome: 'retry', type };
      }
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'poison message; dead-lettering');
      return { outcome: 'dead', type };
    }
  };

  const onMessage = async (channel: Channel, msg: ConsumeMessage): Promise<void> => {
    const attempt = Number(headersOf(msg)['x-attempt'] ?? 1);
    const logger = deps.logger.child({ queue, messageId: msg.properties.messageId as unknown, attempt });
    const held = heldMessage(queue, msg, attempt, msg.fields.routingKey);
    const decided = await decide(msg, held, logger);
    let outcome = decided.outcome;
    if (outcome === 'retry') {
      const delay = delays[attempt - 1];
      if (delay === undefined) {
        logger.warn('retries exhausted; dead-lettering');
        outcome = 'dead';
      } else {
        try {
          await publishRetry(publisher, held, delay);
        } catch (err) {
          // Could not schedule: leave it unacked so the broker redelivers it.
          logger.warn({ err: (err as Error).message }, 'could not schedule retry; requeueing');
          safeNack(channel, msg, true);
          return;
        }
      }
    }
    deps.handled.inc({ queue, type: decided.type, outcome });
    if (outcome === 'dead') safeNack(channel, msg, false);
    else safeAck(channel, msg);
  };

  return async (conn) => {
    const channel = await conn.createChannel();
    channel.on('error', (err: Error) => deps.log.warn({ err: err.message, queue }, 'consumer channel error'));
    await channel.assertQueue(queue, {
      ...durable,
      arguments: {
        ...durable.arguments,
        'x-dead-letter-exchange': deadLetterExchange(deps.service),
        'x-dead-letter-routing-key': queue,
      },
    });
    await assertDeadLetterQueue(channel, queue, deps.service, deps.quorumQueues);
    for (const pattern of spec.bindings) await channel.bindQueue(queue, EXCHANGES.events, pattern);
    for (const pattern of spec.unbind ?? []) await channel.unbindQueue(queue, EXCHANGES.events, pattern);
    for (const delay of delays) {
      // A retried message keeps its original routing key in a header; the delay queue dead-letters
      // into the default exchange with the work queue's name, so it lands back in `queue`.
      await channel.assertQueue(delayQueue(queue, delay), {
        ...durable,
        arguments: {
          ...durable.arguments,
          'x-message-ttl': delay,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': queue,
        },
      });
    }
    await channel.prefetch(spec.prefetch ?? 10);
    const { consumerTag } = await channel.consume(queue, (msg) => {
      if (!msg) return closeCancelled(channel, deps.log, queue);
      // A message back from a delay queue arrives with the queue name as routing key.
      const original = headersOf(msg)['x-original-routing-key'];
      if (typeof original === 'string') msg.fields.routingKey = original;
      deps.deliveries.track(onMessage(channel, msg));
    });
    deps.deliveries.consuming(channel, consumerTag);
    return channel;
  };
}
