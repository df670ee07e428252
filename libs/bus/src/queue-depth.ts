import type { Channel, ChannelModel } from 'amqplib';

/**
 * The queues a service consumes (and their dead-letter queues), read from the broker with a passive
 * declare when Prometheus scrapes: `bus_queue_messages_ready{queue}` counts the messages waiting for
 * a consumer. Every replica reports the same figure, so alerts take the max per queue. Reading is
 * bounded by `timeoutMs`: a slow or lost broker leaves the series out rather than stalling a scrape.
 */
export class QueueDepths {
  private readonly queues = new Set<string>();

  constructor(
    private readonly connection: () => ChannelModel | null,
    private readonly timeoutMs = 2000,
  ) {}

  watch(...queues: string[]): void {
    for (const q of queues) this.queues.add(q);
  }

  /** Ready messages per watched queue; a queue that cannot be read (missing, broker gone) is left out. */
  async read(): Promise<Map<string, number>> {
    const conn = this.connection();
    const depths = new Map<string, number>();
    if (!conn || !this.queues.size) return depths;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)));
    await Promise.race([this.readAll(conn, depths), deadline]);
    clearTimeout(timer);
    return new Map(depths);
  }

  private async readAll(conn: ChannelModel, into: Map<string, number>): Promise<void> {
    let channel: Channel | null = null;
    try {
      for (const queue of this.queues) {
        if (!channel) {
          channel = await conn.createChannel();
          // A passive declare of a missing queue closes the channel with an error: expected, not fatal.
          channel.on('error', () => undefined);
        }
        try {
          into.set(queue, (await channel.checkQueue(queue)).messageCount);
        } catch {
          channel = null;
        }
      }
    } catch {
      // The connection went away mid-read: what was read so far stands.
    } finally {
      await channel?.close().catch(() => undefined);
    }
  }
}
