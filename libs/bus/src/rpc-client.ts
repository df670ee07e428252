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

interface PendingCall {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  method: string;
}

/** Calls other services' RPC queues and matches their replies to the waiting callers. */
export class RpcClient {
  /** The calling channel and the reply queue it consumes, once both are set up. */
  private current: { channel: Channel; replyTo: string } | null = null;
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
    await channel.consume(queue, (msg) => (msg ? this.onReply(msg) : closeCancelled(channel, this.log, queue)), {
      noAck: true,
    });
    this.current = { channel, replyTo: queue };
    return channel;
  };

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
      const timer = setTimeout(() => this.fail(correlationId, new RpcTimeoutError(def.type, timeoutMs)), timeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer, method: def.type });
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
