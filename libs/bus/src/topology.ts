import type { Channel, ChannelModel } from 'amqplib';
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

const setupChannels = new WeakMap<ChannelModel, Promise<Channel>>();

/**
 * The connection's set-up channel, opened once and kept for the connection's life. Closing a
 * channel makes amqplib format an error stack, and with --enable-source-maps the first one formatted
 * parses the bundle's whole source map: 1.7-4.4 MiB of heap per idle service (the memory bench,
 * bench/README.md). A channel the broker closes (a failed declaration) is replaced on the next use.
 */
function setupChannel(conn: ChannelModel): Promise<Channel> {
  const known = setupChannels.get(conn);
  if (known) return known;
  const opening = conn.createChannel().then((channel) => {
    // The failed declaration rejects its own call; this only keeps the event from being unhandled.
    channel.on('error', () => undefined);
    channel.once('close', () => {
      if (setupChannels.get(conn) === opening) setupChannels.delete(conn);
    });
    return channel;
  });
  opening.catch(() => {
    if (setupChannels.get(conn) === opening) setupChannels.delete(conn);
  });
  setupChannels.set(conn, opening);
  return opening;
}

/** The exchanges every service relies on: the events topic and the service's own dead-letter exchange. */
export function sharedTopology(service: string): Attach {
  return async (conn) => {
    const setup = await setupChannel(conn);
    await setup.assertExchange(EXCHANGES.events, 'topic', { durable: true });
    await setup.assertExchange(deadLetterExchange(service), 'direct', { durable: true });
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

/** Runs `declare` on the connection's set-up channel (see setupChannel); `declare` must not close it. */
export function extraTopology(declare: (channel: Channel) => Promise<void>): Attach {
  return async (conn) => declare(await setupChannel(conn));
}
