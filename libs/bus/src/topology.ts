import type { Channel } from 'amqplib';
import { deadLetterExchange, deadLetterQueue, EXCHANGES } from '@mf/contracts';
import type { Attach } from './connection';

export interface DurableQueueOptions {
  durable: true;
  arguments: Record<string, unknown>;
}

/** Options of every durable queue: classic by default, quorum when configured. */
export function durableQueue(quorum: boolean): DurableQueueOptions {
  return { durable: true, arguments: quorum ? { 'x-queue-type': 'quorum' } : {} };
}

/** The exchanges every service relies on: the events topic and the service's own dead-letter exchange. */
export function sharedTopology(service: string): Attach {
  return async (conn) => {
    const setup = await conn.createChannel();
    await setup.assertExchange(EXCHANGES.events, 'topic', { durable: true });
    await setup.assertExchange(deadLetterExchange(service), 'direct', { durable: true });
    await setup.close();
  };
}

/** `<queue>.dlq`, bound to the service's dead-letter exchange under the work queue's name. */
export async function assertDeadLetterQueue(
  channel: Channel,
  queue: string,
  service: string,
  quorum: boolean,
): Promise<void> {
  await channel.assertQueue(deadLetterQueue(queue), durableQueue(quorum));
  await channel.bindQueue(deadLetterQueue(queue), deadLetterExchange(service), queue);
}

/** Runs `declare` on a channel of its own, closed afterwards whatever happens. */
export function extraTopology(declare: (channel: Channel) => Promise<void>): Attach {
  return async (conn) => {
    const ch = await conn.createChannel();
    try {
      await declare(ch);
    } finally {
      await ch.close().catch(() => undefined);
    }
  };
}
