import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@mf/logger';
import type { BusMetrics } from './metrics';

/**
 * The consumers of this bus and the messages they are handling, so a graceful close can stop new
 * deliveries and wait for the ones in flight to be acked.
 */
export class Deliveries {
  private readonly consumers: { channel: Channel; tag: string }[] = [];
  private inFlight = 0;

  constructor(private readonly log: Logger) {}

  /** Records a consumer started on `channel`, to cancel on close (forgotten if its channel closes first). */
  consuming(channel: Channel, tag: string): void {
    const consumer = { channel, tag };
    this.consumers.push(consumer);
    channel.once('close', () => {
      const at = this.consumers.indexOf(consumer);
      if (at >= 0) this.consumers.splice(at, 1);
    });
  }

  /** Counts `handling` as in flight until it settles. */
  track(handling: Promise<void>): void {
    this.inFlight++;
    handling.catch((err: Error) => this.log.error({ err }, 'message handling failed')).finally(() => this.inFlight--);
  }

  /** The connection is gone and its consumers with it (the next connection starts them again). */
  forget(): void {
    this.consumers.length = 0;
  }

  /** Cancels every consumer (no new deliveries), then waits for in-flight handlers until `until` (epoch ms). */
  async stop(until: number): Promise<void> {
    for (const { channel, tag } of [...this.consumers]) await channel.cancel(tag).catch(() => undefined);
    while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    // Close the consumers' channels before the caller closes the connection: a channel's close
    // follows its last acks on the wire, while a connection close could overtake acks still queued
    // on a channel (the broker would then redeliver messages already handled).
    const left = Math.max(0, until - Date.now());
    await Promise.race([
      Promise.all([...this.consumers].map(({ channel }) => channel.close().catch(() => undefined))),
      new Promise((r) => setTimeout(r, left).unref()),
    ]);
  }
}

export function safeAck(channel: Channel, msg: ConsumeMessage): void {
  try {
    channel.ack(msg);
  } catch {
    // Channel gone: the broker redelivers the message; handlers are idempotent.
  }
}

export function safeNack(channel: Channel, msg: ConsumeMessage, requeue: boolean): void {
  try {
    channel.nack(msg, false, requeue);
  } catch {
    /* channel gone: redelivered later */
  }
}

/** What the RPC server and the event consumer share to handle deliveries. */
export interface DeliveryDeps {
  /** Parent of each message's logger. */
  logger: Logger;
  /** The bus's own log (channel errors). */
  log: Logger;
  handled: BusMetrics['handled'];
  deliveries: Deliveries;
  /** Names the service's dead-letter exchange. */
  service: string;
  quorumQueues: boolean;
}
