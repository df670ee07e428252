import net from 'node:net';

/**
 * A TCP proxy between the bus and the test broker that can make "the broker" close one channel
 * while the connection stays up, as a cluster node does when a quorum queue loses its leader
 * (541 INTERNAL_ERROR). It reads the AMQP 0-9-1 frames going through to know which channel
 * consumes which queue and which one publishes with confirms. On `closeChannel` it sends the bus a
 * `channel.close` with the code given, closes the same channel towards the broker, and keeps the
 * two sides consistent until both have acknowledged: frames of that channel are dropped until each
 * side's `channel.close-ok`, and a new channel the bus opens under the same number meanwhile is
 * held back until the broker has released it.
 */
export interface ChannelFaultProxy {
  /** amqp URL of the proxy, with the credentials and vhost of the broker URL it was given. */
  url: string;
  /** Connections the proxy has accepted so far (a reconnect shows as one more). */
  connectionsAccepted: () => number;
  /** Whether some connection has a channel consuming `queue` now. */
  consuming: (queue: string) => boolean;
  /** Every queue consumed through the proxy now; `bound`: only those bound to an exchange through it, or only those not. */
  consumedQueues: (opts?: { bound?: boolean }) => string[];
  /** Closes, from the broker's side, the channel consuming `queue`. */
  closeConsumerChannel: (queue: string, code?: number, text?: string) => void;
  /** Closes, from the broker's side, the channel on which the bus publishes with confirms. */
  closeConfirmChannel: (code?: number, text?: string) => void;
  /**
   * From now on drops, unanswered, what the channels that have published to `queue` so far publish
   * to it, as a cluster node does with a channel whose state for a quorum queue still names a leader
   * that is gone: the connection and the channel stay up, the messages go nowhere. A channel opened
   * later publishes normally. Returns how many channels it stalled.
   */
  stallPublishers: (queue: string) => number;
  close: () => Promise<void>;
}

const FRAME_METHOD = 1;
const FRAME_END = 0xce;
const CHANNEL = 20;
const CHANNEL_CLOSE = 40;
const CHANNEL_CLOSE_OK = 41;
const QUEUE = 50;
const QUEUE_BIND = 20;
const BASIC = 60;
const BASIC_CONSUME = 20;
const BASIC_CANCEL = 30;
const BASIC_PUBLISH = 40;
const FRAME_HEADER = 2;
const FRAME_BODY = 3;
const CONFIRM = 85;
const CONFIRM_SELECT = 10;

interface Frame {
  type: number;
  channel: number;
  payload: Buffer;
  raw: Buffer;
}

function methodOf(frame: Frame): [number, number] | null {
  if (frame.type !== FRAME_METHOD || frame.payload.length < 4) return null;
  return [frame.payload.readUInt16BE(0), frame.payload.readUInt16BE(2)];
}

function shortString(buf: Buffer, at: number): string {
  return buf.subarray(at + 1, at + 1 + buf[at]).toString('utf8');
}

function frame(channel: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head.writeUInt8(FRAME_METHOD, 0);
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(payload.length, 3);
  return Buffer.concat([head, payload, Buffer.from([FRAME_END])]);
}

function channelClose(channel: number, code: number, text: string): Buffer {
  const reply = Buffer.from(text, 'utf8');
  const payload = Buffer.alloc(4 + 2 + 1 + reply.length + 4);
  payload.writeUInt16BE(CHANNEL, 0);
  payload.writeUInt16BE(CHANNEL_CLOSE, 2);
  payload.writeUInt16BE(code, 4);
  payload.writeUInt8(reply.length, 6);
  reply.copy(payload, 7);
  // class-id and method-id 0: not caused by a method of the client's.
  return frame(channel, payload);
}

/** Splits a byte stream into frames (after `skip` leading bytes: the client's protocol header). */
class FrameReader {
  private buf = Buffer.alloc(0);
  constructor(private skip: number) {}

  push(chunk: Buffer): { passThrough: Buffer; frames: Frame[] } {
    this.buf = Buffer.concat([this.buf, chunk]);
    let passThrough = Buffer.alloc(0);
    if (this.skip > 0) {
      const n = Math.min(this.skip, this.buf.length);
      passThrough = this.buf.subarray(0, n);
      this.buf = this.buf.subarray(n);
      this.skip -= n;
    }
    const frames: Frame[] = [];
    while (this.buf.length >= 8) {
      const size = this.buf.readUInt32BE(3);
      if (this.buf.length < size + 8) break;
      frames.push(parseFrame(this.buf.subarray(0, size + 8)));
      this.buf = this.buf.subarray(size + 8);
    }
    return { passThrough, frames };
  }
}

/** A channel the proxy is closing: what each side still has to acknowledge. */
interface Closing {
  clientClosed: boolean;
  brokerClosed: boolean;
  /** Frames of a channel the bus opened again under this number before the broker released it. */
  held: Buffer[];
}

class ProxiedConnection {
  readonly consumers = new Map<number, Set<string>>();
  readonly confirmChannels = new Set<number>();
  /** Queues bound to an exchange through this connection. */
  readonly bound = new Set<string>();
  /** Per channel, the queues it has published to (default exchange). */
  readonly publishedTo = new Map<number, Set<string>>();
  /** Per channel, the queues whose publishes the proxy drops. */
  readonly stalled = new Map<number, Set<string>>();
  /** Channels whose current message (its header and body frames) is being dropped. */
  private readonly dropping = new Set<number>();
  private readonly closing = new Map<number, Closing>();

  constructor(
    private readonly client: net.Socket,
    private readonly broker: net.Socket,
  ) {
    const fromClient = new FrameReader(8);
    const fromBroker = new FrameReader(0);
    client.on('data', (chunk: Buffer) => {
      const { passThrough, frames } = fromClient.push(chunk);
      if (passThrough.length) broker.write(passThrough);
      for (const f of frames) this.clientFrame(f);
    });
    broker.on('data', (chunk: Buffer) => {
      for (const f of fromBroker.push(chunk).frames) this.brokerFrame(f);
    });
  }

  closeChannel(channel: number, code: number, text: string): void {
    this.closing.set(channel, { clientClosed: false, brokerClosed: false, held: [] });
    this.forgetChannel(channel);
    this.client.write(channelClose(channel, code, text));
    this.broker.write(channelClose(channel, 200, 'closed by the test proxy'));
  }

  private forgetChannel(channel: number): void {
    this.consumers.delete(channel);
    this.confirmChannels.delete(channel);
    this.publishedTo.delete(channel);
    this.stalled.delete(channel);
    this.dropping.delete(channel);
  }

  stall(queue: string): number {
    let n = 0;
    for (const [channel, queues] of this.publishedTo)
      if (queues.has(queue)) {
        this.stalled.set(channel, new Set([...(this.stalled.get(channel) ?? []), queue]));
        n++;
      }
    return n;
  }

  private clientFrame(f: Frame): void {
    const method = methodOf(f);
    const closing = this.closing.get(f.channel);
    if (closing && !closing.clientClosed) {
      // Until the bus acknowledges the close, whatever it sends on the channel is void.
      if (method?.[0] === CHANNEL && method[1] === CHANNEL_CLOSE_OK) {
        closing.clientClosed = true;
        if (closing.brokerClosed) this.release(f.channel, closing);
      }
      return;
    }
    if (closing) {
      closing.held.push(f.raw);
      return;
    }
    if (f.type === FRAME_HEADER || f.type === FRAME_BODY) {
      if (!this.dropping.has(f.channel)) this.broker.write(f.raw);
      return;
    }
    this.dropping.delete(f.channel);
    if (method?.[0] === BASIC && method[1] === BASIC_PUBLISH) {
      // ticket (2 bytes), exchange, routing key: a publish to the default exchange names its queue.
      const exchange = shortString(f.payload, 6);
      const queue = exchange === '' ? shortString(f.payload, 7) : null;
      if (queue !== null) {
        this.publishedTo.set(f.channel, new Set([...(this.publishedTo.get(f.channel) ?? []), queue]));
        if (this.stalled.get(f.channel)?.has(queue)) {
          this.dropping.add(f.channel);
          return;
        }
      }
    } else if (method?.[0] === BASIC && method[1] === BASIC_CONSUME) {
      const queue = shortString(f.payload, 6);
      this.consumers.set(f.channel, new Set([...(this.consumers.get(f.channel) ?? []), queue]));
    } else if (method?.[0] === QUEUE && method[1] === QUEUE_BIND) {
      this.bound.add(shortString(f.payload, 6));
    } else if (method?.[0] === CONFIRM && method[1] === CONFIRM_SELECT) {
      this.confirmChannels.add(f.channel);
    } else if (method?.[0] === CHANNEL && (method[1] === CHANNEL_CLOSE || method[1] === CHANNEL_CLOSE_OK)) {
      this.forgetChannel(f.channel);
    }
    this.broker.write(f.raw);
  }

  private brokerFrame(f: Frame): void {
    const method = methodOf(f);
    const closing = this.closing.get(f.channel);
    if (closing && !closing.brokerClosed) {
      if (method?.[0] === CHANNEL && method[1] === CHANNEL_CLOSE_OK) {
        closing.brokerClosed = true;
        if (closing.clientClosed) this.release(f.channel, closing);
      }
      return;
    }
    if (method?.[0] === CHANNEL && method[1] === CHANNEL_CLOSE) this.forgetChannel(f.channel);
    if (method?.[0] === BASIC && method[1] === BASIC_CANCEL) this.consumers.delete(f.channel);
    this.client.write(f.raw);
  }

  /** Both sides have closed the channel: the bus's new channel under its number goes through now. */
  private release(channel: number, closing: Closing): void {
    this.closing.delete(channel);
    for (const raw of closing.held) this.clientFrame(parseFrame(raw));
  }
}

function parseFrame(raw: Buffer): Frame {
  const size = raw.readUInt32BE(3);
  return { type: raw[0], channel: raw.readUInt16BE(1), payload: raw.subarray(7, 7 + size), raw };
}

export async function startChannelFaultProxy(brokerUrl: string): Promise<ChannelFaultProxy> {
  const target = new URL(brokerUrl);
  const live = new Set<ProxiedConnection>();
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const broker = net.connect(Number(target.port || 5672), target.hostname);
    const conn = new ProxiedConnection(client, broker);
    live.add(conn);
    sockets.add(client).add(broker);
    const end = () => {
      live.delete(conn);
      sockets.delete(client);
      sockets.delete(broker);
      client.destroy();
      broker.destroy();
    };
    client.on('close', end).on('error', end);
    broker.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(brokerUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const find = (
    test: (c: ProxiedConnection, channel: number) => boolean,
    channels: (c: ProxiedConnection) => number[],
  ) => {
    for (const c of live) for (const ch of channels(c)) if (test(c, ch)) return { c, ch };
    return null;
  };

  return {
    url: url.toString(),
    connectionsAccepted: () => accepted,
    consumedQueues: (opts = {}) =>
      [...live]
        .flatMap((c) => [...c.consumers.values()].flatMap((qs) => [...qs]).map((q) => [q, c.bound.has(q)] as const))
        .filter(([, bound]) => opts.bound === undefined || opts.bound === bound)
        .map(([q]) => q),
    consuming: (queue) =>
      !!find(
        (c, ch) => !!c.consumers.get(ch)?.has(queue),
        (c) => [...c.consumers.keys()],
      ),
    closeConsumerChannel: (queue, code = 541, text = 'INTERNAL_ERROR') => {
      const hit = find(
        (c, ch) => !!c.consumers.get(ch)?.has(queue),
        (c) => [...c.consumers.keys()],
      );
      if (!hit) throw new Error(`no channel consumes ${queue}`);
      hit.c.closeChannel(hit.ch, code, text);
    },
    closeConfirmChannel: (code = 541, text = 'INTERNAL_ERROR') => {
      const hit = find(
        () => true,
        (c) => [...c.confirmChannels],
      );
      if (!hit) throw new Error('no channel publishes with confirms');
      hit.c.closeChannel(hit.ch, code, text);
    },
    stallPublishers: (queue) => [...live].reduce((n, c) => n + c.stall(queue), 0),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
