import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { RpcReplyBody, RpcReplyOf, RpcRequestOf } from '@mf/contracts';
import { fromWire } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { decode, encode, envelope } from './codec';
import { closeCancelled, type BrokerConnection } from './connection';
import { BusUnavailableError, RpcTimeoutError } from './errors';
import type { BusMetrics } from './metrics';
import type { AnyRpcService } from './types';

/**
 * The reply queue of a calling channel: server-named, exclusive to its connection, gone with its
 * consumer. Not RabbitMQ's direct reply-to: a server answering a direct reply-to address whose
 * caller was on a cluster node that has since gone down crashes its own broker channel, and with it
 * its whole connection (541 INTERNAL_ERROR, RabbitMQ 3.10); the unacked request came back, was
 * answered again, and the server looped until the request's deadline passed (docs/decisions.md).
 * A reply to a queue that no longer exists is simply dropped by the broker.
 */
const REPLY_QUEUE = { exclusive: true, autoDelete: true, durable: false, arguments: { 'x-queue-type': 'classic' } };

/** Calls timed out in a row, with no reply on their channel meanwhile, before the channel is replaced. */
const SILENT_TIMEOUTS_BEFORE_FRESH_CHANNEL = 2;

interface PendingCall {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  method: string;
  /** The calling channel it was sent on, and how many replies that channel had had by then. */
  channel: Channel;
  repliesBefore: number;
  sentAt: number;
}

/** Calls other services' RPC queues and matches their replies to the waiting callers. */
export class RpcClient {
  /** The calling channel and the reply queue it consumes, once both are set up. */
  private current: {
    channel: Channel;
    replyTo: string;
    replies: number;
    silentTimeouts: number;
    /** When the last counted timeout expired. */
    lastSilentAt: number;
  } | null = null;
  private readonly pending = new Map<string, PendingCall>();

  constructor(
    private readonly connection: BrokerConnection,
    private readonly log: Logger,
    private readonly rpcDuration: BusMetrics['rpcDuration'],
    private readonly defaultTimeoutMs: number,
  ) {}

  /**
   * Opens the calling channel on a new connection (and again whenever the broker closes it alone)
   * with its reply queue. The queue goes with its channel's consumer, so when that channel closes,
   * every call waiting on it fails at once as 503 instead of waiting out its timeout for a reply
   * that can no longer come.
   */
  readonly open = async (conn: ChannelModel): Promise<Channel> => {
    const channel = await conn.createChannel();
    channel.on('error', (err: Error) => this.log.warn({ err: err.message }, 'rpc channel error'));
    channel.once('close', () => {
      if (this.current?.channel !== channel) return;
      this.current = null;
      // When the whole connection went, amqplib closes its channels first and the connection right
      // after, in the same tick: the calls then fail as a lost connection (Bus.onLost) instead.
      setImmediate(() => this.failAll(new BusUnavailableError('broker channel closed')));
    });
    // A request to a queue that does not exist comes back here at once: fail the call now.
    channel.on('return', (msg: ConsumeMessage) =>
      this.fail(
        msg.properties.correlationId as string | undefined,
        new BusUnavailableError(`no queue ${msg.fields.routingKey}`),
      ),
    );
    const { queue } = await channel.assertQueue('', REPLY_QUEUE);
    const calling = { channel, replyTo: queue, replies: 0, silentTimeouts: 0, lastSilentAt: 0 };
    await channel.consume(
      queue,
      (msg) => {
        if (!msg) return closeCancelled(channel, this.log, queue);
        calling.replies++;
        calling.silentTimeouts = 0;
        this.onReply(msg);
      },
      { noAck: true },
    );
    this.current = calling;
    return channel;
  };

  /**
   * Two calls in a row timed out on a channel that had no reply at all since they were sent: the
   * channel, not the server, is the likely fault. A cluster node keeps, per channel, the leader of
   * each quorum queue the channel publishes to; a channel that first published while a lost node's
   * queues were still electing can keep sending to a leader that is gone, and all it sends then
   * vanishes while the connection looks healthy (seen in `npm run test:cluster`). Closing the
   * channel makes the connection open a fresh one, with a fresh reply queue, after the usual
   * back-off; calls still waiting on it fail as 503, as on any closed channel. A server that is
   * down or slow costs a fresh channel per two timeouts; any reply keeps the channel. Calls that
   * were all in flight when one of them timed out are one silence, counted once: a request that
   * asks two RPCs at once of a service that is down must not cost the channel (the next request,
   * once the service is back, would find it being replaced).
   */
  private onTimeout(call: PendingCall, correlationId: string, timeoutMs: number): void {
    this.fail(correlationId, new RpcTimeoutError(call.method, timeoutMs));
    const current = this.current;
    if (!current || current.channel !== call.channel || current.replies !== call.repliesBefore) return;
    if (call.sentAt < current.lastSilentAt) return;
    current.lastSilentAt = Date.now();
    if (++current.silentTimeouts < SILENT_TIMEOUTS_BEFORE_FRESH_CHANNEL) return;
    this.log.warn(
      { method: call.method, timeoutMs, timeouts: current.silentTimeouts },
      'rpc calls timed out on a channel that got no reply since; opening a fresh one',
    );
    current.channel.close().catch(() => undefined);
  }

  /**
   * Calls a method of another service and waits for its reply. A typed AppError raised remotely is
   * rethrown here unchanged; a timeout or a lost broker is a 503 AppError (safe to retry).
   * The request carries a TTL equal to the timeout, so a service that comes back later never acts
   * on a call whose caller has already given up.
   */
  async call<S extends AnyRpcService, K extends keyof S['methods'] & string>(
    service: S,
    method: K,
    request: RpcRequestOf<S['methods'][K]>,
    opts: { timeoutMs?: number; correlationId?: string } = {},
  ): Promise<RpcReplyOf<S['methods'][K]>> {
    const def = service.methods[method];
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    // The channel of a connection that is lost, or not yet fully attached, is not used.
    const calling = this.connection.current ? this.current : null;
    const end = this.rpcDuration.startTimer({ method: def.type });
    if (!calling) {
      end({ outcome: 'unavailable' });
      throw new BusUnavailableError('broker not connected');
    }
    const correlationId = randomUUID();
    const body = envelope(def.type, def.version, request, { correlationId: opts.correlationId ?? correlationId });
    const result = new Promise<unknown>((resolve, reject) => {
      const call: PendingCall = {
        resolve,
        reject,
        timer: setTimeout(() => this.onTimeout(call, correlationId, timeoutMs), timeoutMs),
        method: def.type,
        channel: calling.channel,
        repliesBefore: calling.replies,
        sentAt: Date.now(),
      };
      this.pending.set(correlationId, call);
    });
    try {
      calling.channel.sendToQueue(service.queue, encode(body), {
        correlationId,
        replyTo: calling.replyTo,
        type: def.type,
        messageId: body.messageId,
        contentType: 'application/json',
        expiration: String(timeoutMs),
        headers: { 'x-deadline': Date.now() + timeoutMs },
        persistent: false,
        mandatory: true,
      });
    } catch (err) {
      this.fail(correlationId, new BusUnavailableError((err as Error).message));
    }
    try {
      const value = await result;
      end({ outcome: 'ok' });
      return value as RpcReplyOf<S['methods'][K]>;
    } catch (err) {
      end({
        outcome:
          err instanceof RpcTimeoutError ? 'timeout' : err instanceof BusUnavailableError ? 'unavailable' : 'error',
      });
      throw err;
    }
  }

  /** Fails every call still waiting for a reply (the connection is gone). */
  failAll(err: Error): void {
    for (const id of [...this.pending.keys()]) this.fail(id, err);
  }

  private fail(correlationId: string | undefined, err: Error): void {
    if (!correlationId) return;
    const call = this.pending.get(correlationId);
    if (!call) return;
    this.pending.delete(correlationId);
    clearTimeout(call.timer);
    call.reject(err);
  }

  private onReply(msg: ConsumeMessage): void {
    const id = msg.properties.correlationId as string | undefined;
    if (!id) return;
    const call = this.pending.get(id);
    if (!call) return; // late reply after a timeout: the caller has moved on
    this.pending.delete(id);
    clearTimeout(call.timer);
    try {
      const reply = decode(msg.content) as RpcReplyBody<unknown>;
      if (reply.ok) call.resolve(reply.result);
      else call.reject(fromWire(reply.error));
    } catch (err) {
      call.reject(new Error(`malformed reply to ${call.method}: ${(err as Error).message}`));
    }
  }
}
