import type { Channel } from 'amqplib';
import { deadLetterQueue, type EventDef, type RpcReplyOf, type RpcRequestOf } from '@mf/contracts';
import { broadcastConsumer, type BroadcastSpec } from './broadcast';
import { BrokerConnection } from './connection';
import { eventConsumer } from './consumer';
import { Deliveries, type DeliveryDeps } from './deliveries';
import { createBusMetrics } from './metrics';
import { Publisher } from './publisher';
import { QueueDepths } from './queue-depth';
import { publishDead, publishRetry } from './retries';
import { RpcClient } from './rpc-client';
import { rpcServer } from './rpc-server';
import { extraTopology, sharedTopology } from './topology';
import type { AnyRpcService, BusOptions, ConsumerSpec, HeldMessage, RpcHandlers } from './types';

/**
 * One connection per process with safe defaults: TCP_NODELAY, heartbeats, a confirm channel for
 * publishes, a reply queue per connection for RPC, manual acks with prefetch for consumers,
 * dead-letter queues, and reconnect with backoff that re-declares topology and re-attaches every
 * consumer (and sets up again a part whose channel alone the broker closed).
 * This class only wires the parts together; each lives in a module of its own.
 */
export class Bus {
  private readonly connection: BrokerConnection;
  private readonly publisher: Publisher;
  private readonly rpcClient: RpcClient;
  private readonly serving: DeliveryDeps;
  private readonly depths: QueueDepths;

  constructor(opts: BusOptions) {
    const log = opts.logger.child({ component: 'bus' });
    this.connection = new BrokerConnection(opts, log);
    this.depths = new QueueDepths(() => this.connection.current);
    const metrics = createBusMetrics(opts.registry, () => this.depths.read());
    this.publisher = new Publisher(this.connection, log, opts.publishTimeoutMs ?? 10_000);
    this.rpcClient = new RpcClient(this.connection, log, metrics.rpcDuration, opts.rpcTimeoutMs ?? 5000);
    const deliveries = new Deliveries(log);
    this.serving = {
      logger: opts.logger,
      log,
      handled: metrics.handled,
      deliveries,
      service: opts.service,
      quorumQueues: opts.quorumQueues ?? false,
    };
    // Not connected yet, so these only register; on every connection they run first, in this order,
    // before the servers and consumers registered later.
    void this.connection.attach(this.publisher.open);
    void this.connection.attach(this.rpcClient.open);
    void this.connection.attach(sharedTopology(opts.service));
    this.connection.onLost((reason) => {
      this.rpcClient.failAll(reason);
      deliveries.forget();
    });
  }

  get connected(): boolean {
    return this.connection.current !== null;
  }

  /** Connects, retrying with backoff until the broker answers. Resolves once connected. */
  start(): Promise<void> {
    return this.connection.start();
  }

  /** Resolves when connected (immediately if already). */
  waitConnected(): Promise<void> {
    return this.connection.waitConnected();
  }

  /**
   * Calls a method of another service and waits for its reply. A typed AppError raised remotely is
   * rethrown here unchanged; a timeout or a lost broker is a 503 AppError (safe to retry).
   */
  rpc<S extends AnyRpcService, K extends keyof S['methods'] & string>(
    service: S,
    method: K,
    request: RpcRequestOf<S['methods'][K]>,
    opts: { timeoutMs?: number; correlationId?: string } = {},
  ): Promise<RpcReplyOf<S['methods'][K]>> {
    return this.rpcClient.call(service, method, request, opts);
  }

  /**
   * Serves a service's RPC queue, now if connected and on every reconnect. Every method needs a
   * handler (a missing one fails to compile).
   */
  serveRpc<S extends AnyRpcService>(
    service: S,
    handlers: RpcHandlers<S>,
    opts: { prefetch?: number } = {},
  ): Promise<void> {
    this.depths.watch(service.queue);
    return this.connection.attach(rpcServer(service, handlers, opts, this.serving));
  }

  /** Publishes a domain event (persistent, confirmed) on the events exchange. */
  publishEvent<T>(
    def: EventDef<T>,
    payload: T,
    ids: { messageId?: string; correlationId?: string } = {},
  ): Promise<void> {
    return this.publisher.publishEvent(def, payload, ids);
  }

  /** Consumes events from a durable queue with broker-held retries and a dead-letter queue (see consumer.ts). */
  consume(spec: ConsumerSpec): Promise<void> {
    this.depths.watch(spec.queue, deadLetterQueue(spec.queue));
    return this.connection.attach(eventConsumer(spec, this.publisher, this.serving));
  }

  /**
   * Puts a message its handler took over (ConsumerContext.message, acked at the time) back on the
   * broker's retry schedule, as the consumer does for a 'retry' outcome: the delay queue of its next
   * attempt (`retryDelaysMs[attempt - 1]`), or its dead-letter queue once the delays are exhausted.
   * Resolves once the broker has it (a 503 BusUnavailableError otherwise).
   */
  async retryLater(held: HeldMessage, retryDelaysMs: number[]): Promise<'scheduled' | 'dead-lettered'> {
    const delay = retryDelaysMs[held.attempt - 1];
    if (delay === undefined) {
      await publishDead(this.publisher, this.serving.service, held);
      return 'dead-lettered';
    }
    await publishRetry(this.publisher, held, delay);
    return 'scheduled';
  }

  /** Sends a message its handler took over to its queue's dead-letter queue (a 'dead' outcome after the ack). */
  deadLetter(held: HeldMessage): Promise<void> {
    return publishDead(this.publisher, this.serving.service, held);
  }

  /**
   * Receives every matching event in this process (each replica its own exclusive queue), now if
   * connected and on every reconnect; events published while disconnected are not received.
   */
  subscribe(spec: BroadcastSpec): Promise<void> {
    return this.connection.attach(broadcastConsumer(spec, this.serving.log));
  }

  /** Declares extra topology on the current connection and on every reconnect. */
  declare(fn: (channel: Channel) => Promise<void>): Promise<void> {
    return this.connection.attach(extraTopology(fn));
  }

  /**
   * Graceful stop: cancel consumers (no new deliveries), wait for in-flight handlers to ack, then
   * close the connection. Pending outgoing calls fail as unavailable.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    await this.connection.stopConnecting(until);
    await this.serving.deliveries.stop(until);
    await this.connection.close();
  }
}
