import type client from 'prom-client';
import type { AnyRpcMethod, Envelope, EventDef, RpcReplyOf, RpcRequestOf, RpcService } from '@mf/contracts';
import type { Logger } from '@mf/logger';

export interface BusOptions {
  /** The broker's URL, or a comma-separated list of a cluster's node URLs (tried in order: nodes.ts). */
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

/** Any RPC service of the contracts. */
export type AnyRpcService = RpcService<Record<string, AnyRpcMethod>>;

export interface RpcContext {
  logger: Logger;
  correlationId: string;
  /** Epoch ms after which the caller has given up. */
  deadline: number;
}

export type RpcHandlers<S extends AnyRpcService> = {
  [K in keyof S['methods']]: (
    req: RpcRequestOf<S['methods'][K]>,
    ctx: RpcContext,
  ) => Promise<RpcReplyOf<S['methods'][K]>>;
};

/** What a queue handler decides for its message (conventions: handlers return, never throw). */
export type HandlerOutcome = 'ack' | 'retry' | 'dead';

export interface ConsumerContext {
  logger: Logger;
  envelope: Envelope<unknown>;
  /** 1 on first delivery, incremented on each broker-scheduled retry. */
  attempt: number;
  /** The message itself, for a handler that acks it now and finishes the work later (Bus.retryLater). */
  message: HeldMessage;
}

/**
 * A consumed message as plain JSON, so it can outlive its delivery: a handler that takes the work
 * over (stores it, acks, does it later) keeps this, and Bus.retryLater puts it back on the broker's
 * retry schedule exactly as the consumer would have.
 */
export interface HeldMessage {
  queue: string;
  routingKey: string;
  /** The body as received (the envelope's JSON). */
  content: string;
  /** 1 on first delivery. */
  attempt: number;
  messageId?: string;
  correlationId?: string;
  /** The publisher's string headers (e.g. trace context); the bus's own retry bookkeeping left out. */
  headers: Record<string, string>;
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
export function eventHandler<T>(
  def: EventDef<T>,
  handle: (payload: T, ctx: ConsumerContext) => Promise<HandlerOutcome>,
): AnyEventHandler {
  return {
    def: def,
    handle: handle,
  };
}

export interface ConsumerSpec {
  queue: string;
  /** Topic bindings on the events exchange. */
  bindings: string[];
  /**
   * Bindings the queue may still have from an earlier version and must lose (removed at every
   * attach; removing one that is absent is a no-op). A binding only ever widens otherwise.
   */
  unbind?: string[];
  /** Routing key -> handler. */
  handlers: Record<string, AnyEventHandler>;
  prefetch?: number;
  /** Broker-held retry schedule: the n-th retry waits retryDelaysMs[n-1]. Exhausted -> dead-letter queue. */
  retryDelaysMs?: number[];
}
