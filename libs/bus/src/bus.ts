import * as amqp from 'amqplib';
import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import client from 'prom-client';
import {
  deadLetterExchange,
  deadLetterQueue,
  delayQueue,
  envelopeSchema,
  EXCHANGES,
  type AnyRpcMethod,
  type Envelope,
  type EventDef,
  type RpcReplyBody,
  type RpcReplyOf,
  type RpcRequestOf,
  type RpcService,
} from '@mf/contracts';
import { AppError, fromWire, isAppError, toWire } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { backoffDelay } from './backoff';
import { decode, encode, envelope } from './codec';
import { BusUnavailableError, RpcTimeoutError } from './errors';

const REPLY_TO = 'amq.rabbitmq.reply-to';

export interface BusOptions {
  url: string;
  /** Service name: names the connection, the dead-letter exchange and log lines. */
  service: string;
  logger: Logger;
  /** Default RPC timeout in ms. */
  rpcTimeoutMs?: number;
  /** Reconnect backoff bounds (conventions: 1 s to 60 s). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** AMQP heartbeat in seconds: how fast a dead broker is noticed. */
  heartbeatSec?: number;
  /** Publisher-confirm wait, ms. */
  publishTimeoutMs?: number;
  registry?: client.Registry;
  /** Declare every durable queue as a quorum queue (replicated; set before the first deploy: a queue's type cannot change). */
  quorumQueues?: boolean;
  /** Give up connecting after this many attempts (a CLI wants to fail fast; services retry forever). */
  maxConnectAttempts?: number;
}

export interface RpcContext {
  logger: Logger;
  correlationId: string;
  /** Epoch ms after which the caller has given up. */
  deadline: number;
}

export type RpcHandlers<S extends RpcService<Record<string, AnyRpcMethod>>> = {
  [K in keyof S['methods']]: (req: RpcRequestOf<S['methods'][K]>, ctx: RpcContext) => Promise<RpcReplyOf<S['methods'][K]>>;
};

/** What a queue handler decides for its message (conventions: handlers return, never throw). */
export type HandlerOutcome = 'ack' | 'retry' | 'dead';

export interface ConsumerContext {
  logger: Logger;
  envelope: Envelope<unknown>;
  /** 1 on first delivery, incremented on each broker-scheduled retry. */
  attempt: number;
}

export interface EventHandler<T> {
  def: EventDef<T>;
  handle: (payload: T, ctx: ConsumerContext) => Promise<HandlerOutcome>;
}

/**
 * An EventHandler of any payload type, for a map of handlers with different payloads. The def is
 * only read (so `unknown` accepts every EventDef<T>) and handle is only called (so `never` accepts
 * every handler). A single `EventHandler<never>` no longer works: Joi 18 schemas carry their output
 * type covariantly (Standard Schema), so EventDef<T> is not assignable to EventDef<never>.
 */
export interface AnyEventHandler {
  def: EventDef<unknown>;
  handle: (payload: never, ctx: ConsumerContext) => Promise<HandlerOutcome>;
}

/** Pairs an event definition with its handler, keeping their payload types in step. */
export function eventHandler<T>(def: EventDef<T>, handle: (payload: T, ctx: ConsumerContext) => Promise<HandlerOutcome>): AnyEventHandler {
  return { def: def as EventDef<unknown>, handle: handle as (payload: never, ctx: ConsumerContext) => Promise<HandlerOutcome> };
}

export interface ConsumerSpec {
  queue: string;
  /** Topic bindings on the events exchange. */
  bindings: string[];
  /** Routing key -> handler. */
  handlers: Record<string, AnyEventHandler>;
  prefetch?: number;
  /** Broker-held retry schedule: the n-th retry waits retryDelaysMs[n-1]. Exhausted -> dead-letter queue. */
  retryDelaysMs?: number[];
}

interface PendingCall {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  method: string;
}

interface Registration {
  /** Declares topology and starts consuming on a fresh connection. */
  attach: (conn: ChannelModel) => Promise<void>;
}

/**
 * One connection per process with safe defaults: TCP_NODELAY, heartbeats, a confirm channel for
 * publishes, direct reply-to for RPC, manual acks with prefetch for consumers, dead-letter queues,
 * and reconnect with backoff that re-declares topology and re-attaches every consumer.
 */
export class Bus {
  private conn: ChannelModel | null = null;
  private pubChannel: ConfirmChannel | null = null;
  private rpcChannel: Channel | null = null;
  private readonly pending = new Map<string, PendingCall>();
  private readonly registrations: Registration[] = [];
  private readonly consumerChannels: { channel: Channel; tag: string }[] = [];
  private inFlight = 0;
  private closing = false;
  private reconnectAttempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Ends the current backoff wait early (close() uses it so a sleeping connect loop stops at once). */
  private wakeReconnect: (() => void) | null = null;
  /** The connection attempt in progress, if any: close() waits for it so no connection outlives the bus. */
  private connectAttempt: Promise<void> | null = null;
  private readonly log: Logger;
  private readonly rpcDuration: client.Histogram<'method' | 'outcome'>;
  private readonly handled: client.Counter<'queue' | 'type' | 'outcome'>;
  private connectedWaiters: (() => void)[] = [];

  constructor(private readonly opts: BusOptions) {
    this.log = opts.logger.child({ component: 'bus' });
    const registers = opts.registry ? [opts.registry] : [];
    this.rpcDuration = new client.Histogram({
      name: 'bus_rpc_call_duration_seconds',
      help: 'Outgoing RPC call duration by method and outcome',
      labelNames: ['method', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
    this.handled = new client.Counter({
      name: 'bus_messages_handled_total',
      help: 'Messages handled by this service, by queue, type and outcome',
      labelNames: ['queue', 'type', 'outcome'],
      registers,
    });
  }

  get connected(): boolean {
    return this.conn !== null && this.pubChannel !== null && this.rpcChannel !== null;
  }

  /** Connects, retrying with backoff until the broker answers. Resolves once connected. */
  async start(): Promise<void> {
    await this.connectLoop();
    // close() was called before the first connection: do not report a bus that is going away as started.
    if (this.closing) throw new BusUnavailableError('bus closed before it connected');
  }

  /** Resolves when connected (immediately if already). */
  waitConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  // ---------------------------------------------------------------- connection management

  private async connectLoop(): Promise<void> {
    while (!this.closing) {
      try {
        this.connectAttempt = this.connectOnce();
        await this.connectAttempt;
        this.reconnectAttempt = 0;
        return;
      } catch (err) {
        if (this.closing) return;
        this.reconnectAttempt++;
        if (this.opts.maxConnectAttempts !== undefined && this.reconnectAttempt >= this.opts.maxConnectAttempts) {
          throw new BusUnavailableError(`cannot reach the broker: ${(err as Error).message}`);
        }
        const delay = backoffDelay(this.reconnectAttempt, this.opts.reconnectMinMs ?? 1000, this.opts.reconnectMaxMs ?? 60_000);
        this.log.warn({ err: (err as Error).message, attempt: this.reconnectAttempt, delayMs: delay }, 'broker connection failed; retrying');
        await new Promise<void>((r) => {
          this.wakeReconnect = r;
          this.reconnectTimer = setTimeout(r, delay);
        });
        this.reconnectTimer = null;
        this.wakeReconnect = null;
      }
    }
  }

  private withHeartbeat(url: string): string {
    if (/[?&]heartbeat=/.test(url)) return url;
    return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${this.opts.heartbeatSec ?? 10}`;
  }

  private async connectOnce(): Promise<void> {
    const conn = await amqp.connect(this.withHeartbeat(this.opts.url), {
      noDelay: true,
      clientProperties: { connection_name: this.opts.service },
    });
    try {
      // close() was called while the socket was opening: drop this connection instead of using it.
      if (this.closing) throw new BusUnavailableError('bus closing');
      conn.on('error', (err: Error) => this.log.warn({ err: err.message }, 'broker connection error'));
      conn.on('blocked', (reason: string) => this.log.warn({ reason }, 'broker blocked the connection'));

      const pub = await conn.createConfirmChannel();
      pub.on('error', (err: Error) => this.log.warn({ err: err.message }, 'publish channel error'));
      pub.on('return', (msg: ConsumeMessage) =>
        this.log.warn({ routingKey: msg.fields.routingKey, exchange: msg.fields.exchange }, 'published message was unroutable'),
      );

      const rpc = await conn.createChannel();
      rpc.on('error', (err: Error) => this.log.warn({ err: err.message }, 'rpc channel error'));
      // A request to a queue that does not exist comes back here at once: fail the call now.
      rpc.on('return', (msg: ConsumeMessage) => this.failPending(msg.properties.correlationId, new BusUnavailableError(`no queue ${msg.fields.routingKey}`)));
      await rpc.consume(REPLY_TO, (msg) => msg && this.onReply(msg), { noAck: true });

      // Shared topology every service relies on.
      const setup = await conn.createChannel();
      await setup.assertExchange(EXCHANGES.events, 'topic', { durable: true });
      await setup.assertExchange(deadLetterExchange(this.opts.service), 'direct', { durable: true });
      await setup.close();

      // Consumers first, then report connected: a service is not "connected" before it serves.
      for (const reg of this.registrations) await reg.attach(conn);
      this.conn = conn;
      this.pubChannel = pub;
      this.rpcChannel = rpc;
    } catch (err) {
      this.conn = null;
      this.pubChannel = null;
      this.rpcChannel = null;
      await conn.close().catch(() => undefined);
      throw err;
    }

    conn.on('close', () => this.onConnectionClosed(conn));
    this.log.info('connected to broker');
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    waiters.forEach((w) => w());
  }

  private onConnectionClosed(conn: ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.pubChannel = null;
    this.rpcChannel = null;
    this.consumerChannels.length = 0;
    for (const id of [...this.pending.keys()]) this.failPending(id, new BusUnavailableError('broker connection lost'));
    if (this.closing) return;
    this.log.warn('broker connection closed; reconnecting');
    // With maxConnectAttempts the loop can give up: log it rather than leave an unhandled rejection.
    this.connectLoop().catch((err: Error) => this.log.error({ err: err.message }, 'gave up reconnecting to the broker'));
  }

  private failPending(correlationId: string | undefined, err: Error): void {
    if (!correlationId) return;
    const call = this.pending.get(correlationId);
    if (!call) return;
    this.pending.delete(correlationId);
    clearTimeout(call.timer);
    call.reject(err);
  }

  // ---------------------------------------------------------------- RPC client

  /**
   * Calls a method of another service and waits for its reply. A typed AppError raised remotely is
   * rethrown here unchanged; a timeout or a lost broker is a 503 AppError (safe to retry).
   * The request carries a TTL equal to the timeout, so a service that comes back later never acts
   * on a call whose caller has already given up.
   */
  async rpc<S extends RpcService<Record<string, AnyRpcMethod>>, K extends keyof S['methods'] & string>(
    service: S,
    method: K,
    request: RpcRequestOf<S['methods'][K]>,
    opts: { timeoutMs?: number; correlationId?: string } = {},
  ): Promise<RpcReplyOf<S['methods'][K]>> {
    const def = service.methods[method];
    const timeoutMs = opts.timeoutMs ?? this.opts.rpcTimeoutMs ?? 5000;
    const channel = this.rpcChannel;
    const end = this.rpcDuration.startTimer({ method: def.type });
    if (!channel) {
      end({ outcome: 'unavailable' });
      throw new BusUnavailableError('broker not connected');
    }
    const correlationId = randomUUID();
    const body = envelope(def.type, def.version, request, { correlationId: opts.correlationId ?? correlationId });
    const result = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => this.failPending(correlationId, new RpcTimeoutError(def.type, timeoutMs)), timeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer, method: def.type });
    });
    try {
      channel.sendToQueue(service.queue, encode(body), {
        correlationId,
        replyTo: REPLY_TO,
        type: def.type,
        messageId: body.messageId,
        contentType: 'application/json',
        expiration: String(timeoutMs),
        headers: { 'x-deadline': Date.now() + timeoutMs },
        persistent: false,
        mandatory: true,
      });
    } catch (err) {
      this.failPending(correlationId, new BusUnavailableError((err as Error).message));
    }
    try {
      const value = await result;
      end({ outcome: 'ok' });
      return value as RpcReplyOf<S['methods'][K]>;
    } catch (err) {
      end({ outcome: err instanceof RpcTimeoutError ? 'timeout' : err instanceof BusUnavailableError ? 'unavailable' : 'error' });
      throw err;
    }
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

  // ---------------------------------------------------------------- RPC server

  /**
   * Serves a service's RPC queue. Every method needs a handler (a missing one fails to compile);
   * every request is validated against the contract schema before the handler sees it.
   */
  serveRpc<S extends RpcService<Record<string, AnyRpcMethod>>>(service: S, handlers: RpcHandlers<S>, opts: { prefetch?: number } = {}): Promise<void> {
    const byType = new Map<string, { key: string; def: AnyRpcMethod }>();
    for (const [key, def] of Object.entries(service.methods)) byType.set(def.type, { key, def });
    const queue = service.queue;

    const onMessage = async (channel: Channel, msg: ConsumeMessage): Promise<void> => {
      const correlationId = msg.properties.correlationId as string;
      const replyTo = msg.properties.replyTo as string | undefined;
      const logger = this.opts.logger.child({ correlationId, queue });
      const deadline = Number(msg.properties.headers?.['x-deadline'] ?? Infinity);
      const reply = (body: RpcReplyBody<unknown>): void => {
        if (replyTo) channel.sendToQueue(replyTo, encode(body), { correlationId, contentType: 'application/json' });
      };
      let type = 'unknown';
      let outcome = 'ok';
      try {
        if (Date.now() > deadline) {
          // The caller gave up already; acting now could, e.g., charge for a request that failed.
          outcome = 'expired';
          logger.warn({ type: msg.properties.type }, 'dropping RPC request past its deadline');
          return;
        }
        const env = decode(msg.content) as Envelope<unknown>;
        type = env.type;
        const entry = byType.get(env.type);
        if (!entry) throw new Error(`unknown RPC type ${env.type}`);
        const { value, error } = entry.def.request.validate(env.payload, { abortEarly: true, convert: false });
        if (error) throw new Error(`invalid ${env.type} request: ${error.message}`);
        const handler = handlers[entry.key as keyof RpcHandlers<S>] as (req: unknown, ctx: RpcContext) => Promise<unknown>;
        const result = await handler(value, { logger, correlationId: env.correlationId ?? correlationId, deadline });
        reply({ ok: true, result });
      } catch (err) {
        if (isAppError(err)) {
          outcome = `status_${err.status}`;
          reply({ ok: false, error: toWire(err) });
        } else {
          outcome = 'error';
          logger.error({ err, type }, 'RPC handler failed');
          reply({ ok: false, error: toWire(AppError.internal()) });
        }
      } finally {
        this.handled.inc({ queue, type, outcome });
      }
    };

    return this.register(async (conn) => {
      const channel = await conn.createChannel();
      channel.on('error', (err: Error) => this.log.warn({ err: err.message, queue }, 'rpc server channel error'));
      // No dead-letter exchange: every request is answered and acked, and one that expires in the
      // queue (its caller gave up) should vanish, not pile up in a DLQ.
      await channel.assertQueue(queue, this.durable());
      await channel.prefetch(opts.prefetch ?? 20);
      const { consumerTag } = await channel.consume(queue, (msg) => {
        if (!msg) return;
        this.track(onMessage(channel, msg).finally(() => this.safeAck(channel, msg)));
      });
      this.consumerChannels.push({ channel, tag: consumerTag });
    });
  }

  // ---------------------------------------------------------------- events

  /** Publishes a domain event (persistent, confirmed) on the events exchange. */
  async publishEvent<T>(def: EventDef<T>, payload: T, ids: { messageId?: string; correlationId?: string } = {}): Promise<void> {
    const body = envelope(def.routingKey, def.version, payload, ids);
    await this.publishConfirmed(EXCHANGES.events, def.routingKey, encode(body), { messageId: body.messageId, type: def.routingKey });
  }

  private publishConfirmed(exchange: string, routingKey: string, content: Buffer, props: amqp.Options.Publish): Promise<void> {
    const channel = this.pubChannel;
    if (!channel) return Promise.reject(new BusUnavailableError('broker not connected'));
    const timeoutMs = this.opts.publishTimeoutMs ?? 10_000;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new BusUnavailableError(`publish confirm timed out after ${timeoutMs} ms`)), timeoutMs);
      try {
        channel.publish(exchange, routingKey, content, { persistent: true, mandatory: true, contentType: 'application/json', ...props }, (err: unknown) => {
          clearTimeout(timer);
          if (err) reject(new BusUnavailableError(`publish nacked: ${String(err)}`));
          else resolve();
        });
      } catch (err) {
        clearTimeout(timer);
        reject(new BusUnavailableError((err as Error).message));
      }
    });
  }

  /**
   * Consumes events from a durable queue bound to the events exchange. Invalid messages and
   * messages whose retries are exhausted go to `<queue>.dlq`; retries wait in per-delay TTL queues
   * held by the broker, so a restart loses no scheduled retry.
   */
  consume(spec: ConsumerSpec): Promise<void> {
    const { queue } = spec;
    const delays = spec.retryDelaysMs ?? [];

    const onMessage = async (channel: Channel, msg: ConsumeMessage): Promise<void> => {
      const attempt = Number(msg.properties.headers?.['x-attempt'] ?? 1);
      let outcome: HandlerOutcome = 'dead';
      let type = 'invalid';
      let env: Envelope<unknown> | undefined;
      const logger = this.opts.logger.child({ queue, messageId: msg.properties.messageId, attempt });
      try {
        const parsed = decode(msg.content);
        const { error } = envelopeSchema.validate(parsed);
        if (error) throw new Error(`invalid envelope: ${error.message}`);
        env = parsed as Envelope<unknown>;
        type = env.type;
        const handler = spec.handlers[msg.fields.routingKey] as EventHandler<unknown> | undefined;
        if (!handler) throw new Error(`no handler for routing key ${msg.fields.routingKey}`);
        const { value, error: payloadError } = handler.def.schema.validate(env.payload, { convert: false });
        if (payloadError) throw new Error(`invalid ${type} payload: ${payloadError.message}`);
        try {
          outcome = await handler.handle(value, { logger, envelope: env, attempt });
        } catch (err) {
          logger.error({ err }, 'event handler threw; scheduling a retry');
          outcome = 'retry';
        }
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'poison message; dead-lettering');
        outcome = 'dead';
      }
      if (outcome === 'retry') {
        const delay = delays[attempt - 1];
        if (delay === undefined) {
          logger.warn('retries exhausted; dead-lettering');
          outcome = 'dead';
        } else {
          try {
            await this.publishConfirmed('', delayQueue(queue, delay), msg.content, {
              ...msg.properties,
              headers: { ...msg.properties.headers, 'x-attempt': attempt + 1, 'x-original-routing-key': msg.fields.routingKey },
            } as amqp.Options.Publish);
          } catch (err) {
            // Could not schedule: leave it unacked so the broker redelivers it.
            logger.warn({ err: (err as Error).message }, 'could not schedule retry; requeueing');
            this.safeNack(channel, msg, true);
            return;
          }
        }
      }
      this.handled.inc({ queue, type, outcome });
      if (outcome === 'dead') this.safeNack(channel, msg, false);
      else this.safeAck(channel, msg);
    };

    return this.register(async (conn) => {
      const channel = await conn.createChannel();
      channel.on('error', (err: Error) => this.log.warn({ err: err.message, queue }, 'consumer channel error'));
      await channel.assertQueue(queue, {
        ...this.durable(),
        arguments: { ...this.durable().arguments, 'x-dead-letter-exchange': deadLetterExchange(this.opts.service), 'x-dead-letter-routing-key': queue },
      });
      await this.assertDeadLetterQueue(channel, queue);
      for (const pattern of spec.bindings) await channel.bindQueue(queue, EXCHANGES.events, pattern);
      for (const delay of delays) {
        // A retried message keeps its original routing key in a header; the delay queue dead-letters
        // into the default exchange with the work queue's name, so it lands back in `queue`.
        await channel.assertQueue(delayQueue(queue, delay), {
          ...this.durable(),
          arguments: { ...this.durable().arguments, 'x-message-ttl': delay, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queue },
        });
      }
      await channel.prefetch(spec.prefetch ?? 10);
      const { consumerTag } = await channel.consume(queue, (msg) => {
        if (!msg) return;
        // A message back from a delay queue arrives with the queue name as routing key.
        const original = msg.properties.headers?.['x-original-routing-key'];
        if (typeof original === 'string') msg.fields.routingKey = original;
        this.track(onMessage(channel, msg));
      });
      this.consumerChannels.push({ channel, tag: consumerTag });
    });
  }

  /** Options of every durable queue: classic by default, quorum when configured. */
  private durable(): { durable: true; arguments: Record<string, unknown> } {
    return { durable: true, arguments: this.opts.quorumQueues ? { 'x-queue-type': 'quorum' } : {} };
  }

  private async assertDeadLetterQueue(channel: Channel, queue: string): Promise<void> {
    await channel.assertQueue(deadLetterQueue(queue), this.durable());
    await channel.bindQueue(deadLetterQueue(queue), deadLetterExchange(this.opts.service), queue);
  }

  // ---------------------------------------------------------------- plumbing

  /**
   * Keeps `attach` for every future connection and runs it now if connected. Resolves once it is
   * attached to the current connection (or at once when not connected: the next connect runs it).
   */
  private async register(attach: Registration['attach']): Promise<void> {
    this.registrations.push({ attach });
    if (this.conn) await attach(this.conn);
  }


  private track(p: Promise<void>): void {
    this.inFlight++;
    p.catch((err: Error) => this.log.error({ err }, 'message handling failed')).finally(() => this.inFlight--);
  }

  private safeAck(channel: Channel, msg: ConsumeMessage): void {
    try {
      channel.ack(msg);
    } catch {
      // Channel gone: the broker redelivers the message; handlers are idempotent.
    }
  }

  private safeNack(channel: Channel, msg: ConsumeMessage, requeue: boolean): void {
    try {
      channel.nack(msg, false, requeue);
    } catch {
      /* channel gone: redelivered later */
    }
  }

  /** Declares extra topology on the current connection and on every reconnect. */
  declare(fn: (channel: Channel) => Promise<void>): Promise<void> {
    return this.register(async (conn) => {
      const ch = await conn.createChannel();
      try {
        await fn(ch);
      } finally {
        await ch.close().catch(() => undefined);
      }
    });
  }

  /**
   * Graceful stop: cancel consumers (no new deliveries), wait for in-flight handlers to ack, then
   * close the connection. Pending outgoing calls fail as unavailable.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.wakeReconnect?.();
    const until = Date.now() + timeoutMs;
    // A connection attempt in flight either drops its connection (still opening) or finishes
    // attaching; either way it is settled before we look at this.conn below.
    if (this.connectAttempt) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.connectAttempt.catch(() => undefined),
        new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, until - Date.now())))),
      ]);
      clearTimeout(timer);
    }
    for (const { channel, tag } of this.consumerChannels) await channel.cancel(tag).catch(() => undefined);
    while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const conn = this.conn;
    this.conn = null;
    this.pubChannel = null;
    this.rpcChannel = null;
    for (const id of [...this.pending.keys()]) this.failPending(id, new BusUnavailableError('bus closing'));
    if (conn) await conn.close().catch(() => undefined);
  }
}
