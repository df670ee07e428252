import type { ConsumeMessage } from 'amqplib';
import { envelopeSchema, EXCHANGES, type Envelope } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { decode } from './codec';
import { closeCancelled, type Attach } from './connection';

/** What a broadcast subscriber receives: the routing key and the (not yet validated) payload. */
export type BroadcastHandler = (routingKey: string, payload: unknown) => void;

export interface BroadcastSpec {
  /** Topic bindings on the events exchange. */
  bindings: string[];
  handle: BroadcastHandler;
  /**
   * Runs each time the queue is bound and consumed: at start, after every reconnect and after its
   * channel is reopened. A reader
   * whose clients must not miss what came while it was disconnected sends them to the log here.
   */
  onSubscribed?: () => void;
}

/**
 * Every process that subscribes gets every matching event (fan-out to each replica): a
 * server-named, exclusive, auto-delete queue of its own, consumed without acks. It lives as long as
 * its consumer; what it misses while disconnected (or while its channel is reopened), the reader
 * takes from its durable source (the event log) when it resumes. Nothing is retried or
 * dead-lettered: a bad message is skipped.
 */
export function broadcastConsumer(spec: BroadcastSpec, log: Logger): Attach {
  const onMessage = (msg: ConsumeMessage): void => {
    try {
      const parsed = decode(msg.content);
      const { error } = envelopeSchema.validate(parsed);
      if (error) throw new Error(`invalid envelope: ${error.message}`);
      spec.handle(msg.fields.routingKey, (parsed as Envelope<unknown>).payload);
    } catch (err) {
      log.warn({ err: (err as Error).message, routingKey: msg.fields.routingKey }, 'broadcast message skipped');
    }
  };
  return async (conn) => {
    const channel = await conn.createChannel();
    channel.on('error', (err: Error) => log.warn({ err: err.message }, 'broadcast channel error'));
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const pattern of spec.bindings) await channel.bindQueue(queue, EXCHANGES.events, pattern);
    await channel.consume(queue, (msg) => (msg ? onMessage(msg) : closeCancelled(channel, log, queue)), {
      noAck: true,
    });
    spec.onSubscribed?.();
    return channel;
  };
}
