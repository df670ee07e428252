import { randomUUID } from 'node:crypto';
import type { Logger } from '@mf/logger';
import { StreamLimits, tooManyStreams, type StreamSlots } from './stream-limits';

/** One held slot: the key it counts against and its id in the store. */
export interface Lease {
  key: string;
  slotId: string;
}

/**
 * Where every replica's stream slots live (Redis or Postgres): a slot is a lease that expires
 * unless its replica renews it, so a crashed replica's slots free themselves. Times are the
 * store's own clock, so replicas' clocks need not agree.
 */
export interface LeaseStore {
  /** Adds the lease unless `limit` unexpired leases of the key exist (expired ones are dropped first); atomic. */
  take(lease: Lease, limit: number, ttlMs: number): Promise<boolean>;
  /** Extends every lease by ttlMs from now (adds it back if it had expired meanwhile: the stream is open). */
  renew(leases: Lease[], ttlMs: number): Promise<void>;
  free(lease: Lease): Promise<void>;
}

export interface SharedSlotsOptions {
  perKey: number;
  /** How long a slot outlives its replica's last renewal; renewed every third of it. */
  ttlMs: number;
  logger: Logger;
  /** The store's name, for the log. */
  storeName: string;
}

const LOG_EVERY_MS = 60_000;

/**
 * The per-key stream limit across every gateway replica: each open stream holds a lease in the
 * shared store, renewed by its replica while the stream lasts and freed when it closes. While the
 * store fails, streams are counted per process instead (as the rate limiter's insurance does), so
 * an outage of the store does not refuse or fail streams; a warning says so, at most once a minute.
 */
export class SharedStreamSlots implements StreamSlots {
  private readonly held = new Map<string, string>(); // slot id -> key
  private readonly fallback: StreamLimits;
  private readonly timer: NodeJS.Timeout;
  private lastWarnAt = -Infinity;

  constructor(
    private readonly store: LeaseStore,
    private readonly opts: SharedSlotsOptions,
  ) {
    this.fallback = new StreamLimits(opts.perKey);
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(opts.ttlMs / 3)));
    this.timer.unref();
  }

  get perKey(): number {
    return this.opts.perKey;
  }

  get total(): number {
    return this.held.size + this.fallback.total;
  }

  async acquire(key: string): Promise<() => void> {
    const lease: Lease = { key, slotId: randomUUID() };
    let taken: boolean;
    try {
      taken = await this.store.take(lease, this.opts.perKey, this.opts.ttlMs);
    } catch (err) {
      this.warn(err, 'stream-limit store failed: counting streams per process until it answers again');
      return this.fallback.take(key);
    }
    if (!taken) throw tooManyStreams(this.opts.perKey);
    this.held.set(lease.slotId, key);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.held.delete(lease.slotId);
      // Not freed in the store (it failed): the lease expires within ttlMs anyway.
      this.store.free(lease).catch((err: unknown) => this.warn(err, 'stream-limit store: freeing a slot failed'));
    };
  }

  /** Renews every lease this replica holds (the timer's job; tests call it directly). */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const leases = [...this.held].map(([slotId, key]) => ({ key, slotId }));
    try {
      await this.store.renew(leases, this.opts.ttlMs);
    } catch (err) {
      this.warn(err, 'stream-limit store: renewing slots failed');
    }
  }

  stop(): Promise<void> {
    clearInterval(this.timer);
    return Promise.resolve();
  }

  private warn(err: unknown, msg: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < LOG_EVERY_MS) return;
    this.lastWarnAt = now;
    this.opts.logger.warn({ store: this.opts.storeName, err: (err as Error).message }, msg);
  }
}
