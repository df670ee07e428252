import type { ChannelModel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { EXCHANGES, type EventDef } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { encode, envelope } from './codec';
import type { BrokerConnection } from './connection';
import { BusUnavailableError } from './errors';

/** Persistent, mandatory publishes on a confirm channel: each resolves once the broker has taken it. */
export class Publisher {
  private channel: ConfirmChannel | null = null;

  constructor(
    private readonly connection: BrokerConnection,
    private readonly log: Logger,
    private readonly confirmTimeoutMs: number,
  ) {}

  /**
   * Opens the confirm channel on a new connection (and again whenever the broker closes it alone).
   * Publishes still waiting for their confirm when it closes fail as 503 (amqplib calls them back
   * with "channel closed"): the broker may or may not have them, and the caller's retry decides.
   */
  readonly open = async (conn: ChannelModel): Promise<ConfirmChannel> => {
    const channel = await conn.createConfirmChannel();
    channel.on('error', (err: Error) => this.log.warn({ err: err.message }, 'publish channel error'));
    channel.once('close', () => {
      if (this.channel === channel) this.channel = null;
    });
    channel.on('return', (msg: ConsumeMessage) =>
      this.log.warn(
        { routingKey: msg.fields.routingKey, exchange: msg.fields.exchange },
        'published message was unroutable',
      ),
    );
    this.channel = channel;
    return channel;
  };

  /** Publishes a domain event (persistent, confirmed) on the events exchange. */
  async publishEvent<T>(
    def: EventDef<T>,
    payload: T,
    ids: { messageId?: string; correlationId?: string } = {},
  ): Promise<void> {
    const body = envelope(def.routingKey, def.version, payload, ids);
    await this.publish(EXCHANGES.events, def.routingKey, encode(body), {
      messageId: body.messageId,
      type: def.routingKey,
    });
  }

  /** Resolves on the broker's confirm; a nack, a timeout or no connection is a 503 BusUnavailableError. */
  publish(exchange: string, routingKey: string, content: Buffer, props: Options.Publish): Promise<void> {
    // The channel of a connection that is lost, or not yet fully attached, is not used.
    const channel = this.connection.current ? this.channel : null;
    if (!channel) return Promise.reject(new BusUnavailableError('broker not connected'));
    const timeoutMs = this.confirmTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BusUnavailableError(`publish confirm timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      try {
        channel.publish(
          exchange,
          routingKey,
          content,
          { persistent: true, mandatory: true, contentType: 'application/json', ...props },
          (err: unknown) => {
            clearTimeout(timer);
            if (err)
              reject(
                new BusUnavailableError(`publish nacked: ${err instanceof Error ? err.message : 'no reason given'}`),
              );
            else resolve();
          },
        );
      } catch (err) {
        clearTimeout(timer);
        reject(new BusUnavailableError((err as Error).message));
      }
    });
  }
}
