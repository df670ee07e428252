import * as amqp from 'amqplib';
import type { Channel, ChannelModel } from 'amqplib';
import type { Logger } from '@mf/logger';
import { backoffDelay } from './backoff';
import { BusUnavailableError } from './errors';
import { brokerNodes, describeNode, NodeRotation } from './nodes';
import type { BusOptions } from './types';

/**
 * Sets up one part of the bus on a new connection: opens its channel, declares its topology, starts
 * consuming. It resolves the channel it keeps, if any: when that channel closes while its connection
 * stays up (the broker closed it alone, e.g. 541 INTERNAL_ERROR from a quorum queue electing a new
 * leader, or the part closed it because the broker cancelled its consumer), the part is set up
 * again on the same connection, with back-off until it succeeds.
 */
export type Attach = (conn: ChannelModel) => Promise<Channel | void>;

/**
 * The broker cancelled a part's consumer (its queue was deleted, or the node serving it lost it):
 * closing the channel has the part set up again (declare, consume) like any channel closed alone.
 * Messages the part was still handling on it are redelivered (handlers are idempotent).
 */
export function closeCancelled(channel: Channel, log: Logger, queue: string): void {
  log.warn({ queue }, 'the broker cancelled a consumer; setting it up again');
  channel.close().catch(() => undefined);
}

/** A connection that stayed up this long before dropping counts as stable: the next one is opened at once. */
const STABLE_CONNECTION_MS = 10_000;

/** Failed tries at setting a part up again on one connection before the connection moves to the next node. */
const REOPEN_ATTEMPTS_PER_NODE = 5;

/**
 * The one broker connection of a process: TCP_NODELAY, heartbeats, and reconnect with backoff that
 * runs every attachment again, in order, on each new connection before it counts as connected.
 * With several nodes (a cluster), it connects to the first that answers and moves on to the next
 * one when its connection drops (nodes.ts).
 */
export class BrokerConnection {
  private conn: ChannelModel | null = null;
  private readonly attachments: Attach[] = [];
  private readonly lostListeners: ((reason: Error) => void)[] = [];
  private connectedWaiters: (() => void)[] = [];
  private closing = false;
  private reconnectAttempt = 0;
  /** When the current connection was set up, and how many connections in a row dropped soon after. */
  private connectedAt = 0;
  private quickDrops = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Ends the current backoff wait early (closing uses it so a sleeping connect loop stops at once). */
  private wakeReconnect: (() => void) | null = null;
  /** The connection attempt in progress, if any: closing waits for it so no connection outlives the bus. */
  private connectAttempt: Promise<void> | null = null;
  /** The connection being opened and attached, before it becomes `conn`. */
  private opening: ChannelModel | null = null;
  /** Timers of parts waiting to be set up again on the current connection (their channel was closed). */
  private readonly reattachTimers = new Set<NodeJS.Timeout>();
  private readonly nodes: NodeRotation;

  constructor(
    private readonly opts: BusOptions,
    private readonly log: Logger,
  ) {
    this.nodes = new NodeRotation(brokerNodes(opts.url));
  }

  /** The live connection, once every attachment has run on it; null otherwise. */
  get current(): ChannelModel | null {
    return this.conn;
  }

  /**
   * Keeps `attach` for every future connection and runs it now if connected. Resolves once it is
   * attached to the current connection (or at once when not connected: the next connect runs it).
   */
  async attach(attach: Attach): Promise<void> {
    this.attachments.push(attach);
    if (this.conn) await this.runAttachment(this.conn, attach);
  }

  /** Called when the connection is lost or closed, with the error that whatever waited on it should get. */
  onLost(listener: (reason: Error) => void): void {
    this.lostListeners.push(listener);
  }

  /** Connects, retrying with backoff until the broker answers. Resolves once connected. */
  async start(): Promise<void> {
    await this.connectLoop();
    // Closed before the first connection: do not report a bus that is going away as started.
    if (this.closing) throw new BusUnavailableError('bus closed before it connected');
  }

  /** Resolves when connected (immediately if already). */
  waitConnected(): Promise<void> {
    if (this.conn) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  /** First step of a graceful close: stop reconnecting and let an attempt in flight settle (until `until`, epoch ms). */
  async stopConnecting(until: number): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.clearReattachTimers();
    this.wakeReconnect?.();
    // An attempt in flight either drops its connection (still opening) or finishes attaching;
    // either way it is settled before close() looks at the connection.
    if (!this.connectAttempt) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.connectAttempt.catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, until - Date.now())))),
    ]);
    clearTimeout(timer);
  }

  /** Last step of a graceful close: forget the connection, fail whatever waits on it, close it. */
  async close(): Promise<void> {
    this.closing = true;
    this.clearReattachTimers();
    const conn = this.conn;
    this.conn = null;
    this.notifyLost(new BusUnavailableError('bus closing'));
    if (conn) await conn.close().catch(() => undefined);
  }

  private async connectLoop(firstDelayMs = 0): Promise<void> {
    if (firstDelayMs > 0) await this.pause(firstDelayMs);
    while (!this.closing) {
      const node = this.nodes.current;
      try {
        this.connectAttempt = this.connectOnce(node);
        await this.connectAttempt;
        this.reconnectAttempt = 0;
        this.nodes.connected();
        return;
      } catch (err) {
        if (this.closing) return;
        // Another node may answer at once: back off only once every node has failed in a row.
        if (!this.nodes.failed()) {
          this.log.warn(
            { err: (err as Error).message, node: describeNode(node), next: describeNode(this.nodes.current) },
            'broker node did not answer; trying the next',
          );
          continue;
        }
        this.reconnectAttempt++;
        if (this.opts.maxConnectAttempts !== undefined && this.reconnectAttempt >= this.opts.maxConnectAttempts) {
          throw new BusUnavailableError(`cannot reach the broker: ${(err as Error).message}`);
        }
        const delay = backoffDelay(
          this.reconnectAttempt,
          this.opts.reconnectMinMs ?? 1000,
          this.opts.reconnectMaxMs ?? 60_000,
        );
        this.log.warn(
          { err: (err as Error).message, attempt: this.reconnectAttempt, delayMs: delay },
          'broker connection failed; retrying',
        );
        await this.pause(delay);
      }
    }
  }

  /** Waits `ms` before the next attempt; closing ends the wait at once. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((r) => {
      this.wakeReconnect = r;
      this.reconnectTimer = setTimeout(r, ms);
    });
    this.reconnectTimer = null;
    this.wakeReconnect = null;
  }

  private withHeartbeat(url: string): string {
    if (/[?&]heartbeat=/.test(url)) return url;
    return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${this.opts.heartbeatSec ?? 10}`;
  }

  private async connectOnce(node: string): Promise<void> {
    const conn = await amqp.connect(this.withHeartbeat(node), {
      noDelay: true,
      clientProperties: { connection_name: this.opts.service },
    });
    this.opening = conn;
    try {
      // Closing began while the socket was opening: drop this connection instead of using it.
      if (this.closing) throw new BusUnavailableError('bus closing');
      conn.on('error', (err: Error) => this.log.warn({ err: err.message }, 'broker connection error'));
      conn.on('blocked', (reason: string) => this.log.warn({ reason }, 'broker blocked the connection'));
      // Consumers first, then report connected: a service is not "connected" before it serves.
      // (for...of also runs an attachment added while this loop is still going.)
      for (const attach of this.attachments) await this.runAttachment(conn, attach);
      this.conn = conn;
    } catch (err) {
      this.conn = null;
      await conn.close().catch(() => undefined);
      throw err;
    } finally {
      this.opening = null;
    }

    conn.on('close', () => this.onConnectionClosed(conn));
    this.connectedAt = Date.now();
    this.log.info({ node: describeNode(node) }, 'connected to broker');
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    waiters.forEach((w) => w());
  }

  /** Runs one part on `conn` and, if it keeps a channel, sets the part up again whenever that channel closes alone. */
  private async runAttachment(conn: ChannelModel, attach: Attach): Promise<void> {
    const channel = await attach(conn);
    if (channel) channel.once('close', () => this.onChannelClosed(conn, attach, 1));
  }

  /** The live connection or the one being attached: the one a part's channel belongs to. */
  private isLive(conn: ChannelModel): boolean {
    return conn === this.conn || conn === this.opening;
  }

  /**
   * A part's channel closed. When its connection went too, the next connection sets every part up
   * anyway; when the connection is still up, only this part lost its channel (and with it its
   * consumer, its replies or its confirms), so it is set up again there after a back-off.
   */
  private onChannelClosed(conn: ChannelModel, attach: Attach, attempt: number): void {
    if (this.closing) return;
    const delay = backoffDelay(attempt, this.opts.reconnectMinMs ?? 1000, this.opts.reconnectMaxMs ?? 60_000);
    const timer = setTimeout(() => {
      this.reattachTimers.delete(timer);
      // The connection closed meanwhile (amqplib closes its channels first): a new one re-runs every part.
      if (this.closing || !this.isLive(conn)) return;
      if (attempt === 1) this.log.warn('a broker channel closed while its connection stayed up; reopening it');
      this.runAttachment(conn, attach).then(
        () => this.log.info({ attempt }, 'broker channel reopened'),
        (err: Error) => {
          if (attempt < REOPEN_ATTEMPTS_PER_NODE) {
            this.log.warn({ err: err.message, attempt }, 'could not reopen a broker channel; retrying');
            this.onChannelClosed(conn, attach, attempt + 1);
            return;
          }
          // This node keeps refusing (e.g. it cannot reach a queue's leader): the next node may not.
          this.log.warn({ err: err.message, attempt }, 'could not reopen a broker channel; moving to the next node');
          if (this.conn === conn) void conn.close().catch(() => undefined);
        },
      );
    }, delay);
    this.reattachTimers.add(timer);
  }

  private clearReattachTimers(): void {
    for (const timer of this.reattachTimers) clearTimeout(timer);
    this.reattachTimers.clear();
  }

  private onConnectionClosed(conn: ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.notifyLost(new BusUnavailableError('broker connection lost'));
    if (this.closing) return;
    this.nodes.dropped();
    // A connection the broker closes soon after it was set up (it fails on something the service
    // does at once, such as answering a message delivered again) would otherwise be reopened in a
    // tight loop: back off while that repeats. A drop after a stable while reconnects at once.
    const quick = Date.now() - this.connectedAt < STABLE_CONNECTION_MS;
    this.quickDrops = quick ? this.quickDrops + 1 : 0;
    const delay = quick
      ? backoffDelay(this.quickDrops, this.opts.reconnectMinMs ?? 1000, this.opts.reconnectMaxMs ?? 60_000)
      : 0;
    this.log.warn(
      { next: describeNode(this.nodes.current), ...(quick ? { delayMs: delay, quickDrops: this.quickDrops } : {}) },
      'broker connection closed; reconnecting',
    );
    // With maxConnectAttempts the loop can give up: log it rather than leave an unhandled rejection.
    this.connectLoop(delay).catch((err: Error) =>
      this.log.error({ err: err.message }, 'gave up reconnecting to the broker'),
    );
  }

  private notifyLost(reason: Error): void {
    for (const listener of this.lostListeners) listener(reason);
  }
}
