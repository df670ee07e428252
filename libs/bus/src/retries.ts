import type { ConsumeMessage } from 'amqplib';
import { deadLetterExchange, delayQueue } from '@mf/contracts';
import type { Publisher } from './publisher';
import type { HeldMessage } from './types';

/** Headers the bus sets, or the broker adds on dead-lettering, while a message goes round its retries. */
const isBookkeeping = (header: string): boolean =>
  header === 'x-attempt' || header === 'x-original-routing-key' || /^x-(death|first-death|last-death)/.test(header);

/** The message as plain JSON (ConsumerContext.message); `routingKey` is its original one. */
export function heldMessage(queue: string, msg: ConsumeMessage, attempt: number, routingKey: string): HeldMessage {
  const raw: unknown = msg.properties.headers;
  const headers: Record<string, string> = {};
  if (raw && typeof raw === 'object')
    for (const [k, v] of Object.entries(raw as Record<string, unknown>))
      if (typeof v === 'string' && !isBookkeeping(k)) headers[k] = v;
  const id = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    queue,
    routingKey,
    content: msg.content.toString('utf8'),
    attempt,
    messageId: id(msg.properties.messageId),
    correlationId: id(msg.properties.correlationId),
    headers,
  };
}

/**
 * Publishes the message's next attempt to the delay queue of `delayMs`, which dead-letters it back
 * into its work queue when the delay is over: the broker holds the schedule, not a process.
 */
export function publishRetry(publisher: Publisher, held: HeldMessage, delayMs: number): Promise<void> {
  return publisher.publish('', delayQueue(held.queue, delayMs), Buffer.from(held.content), {
    ...ids(held),
    headers: { ...held.headers, 'x-attempt': held.attempt + 1, 'x-original-routing-key': held.routingKey },
  });
}

/** Publishes the message to its queue's dead-letter queue (`<queue>.dlq`), where a nack would have sent it. */
export function publishDead(publisher: Publisher, service: string, held: HeldMessage): Promise<void> {
  return publisher.publish(deadLetterExchange(service), held.queue, Buffer.from(held.content), {
    ...ids(held),
    headers: { ...held.headers, 'x-attempt': held.attempt, 'x-original-routing-key': held.routingKey },
  });
}

function ids(held: HeldMessage): { messageId?: string; correlationId?: string; type: string } {
  return {
    ...(held.messageId ? { messageId: held.messageId } : {}),
    ...(held.correlationId ? { correlationId: held.correlationId } : {}),
    type: held.routingKey,
  };
}
