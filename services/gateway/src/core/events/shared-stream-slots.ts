import { randomUUID } from 'node:crypto';
import { AppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { StreamLimits, tooManyStreams, tooManyUserStreams, type SlotOwner, type StreamSlots } from './stream-limits';

/** One held slot: what it counts against (an API key's or a user's name) and its id in the store. */
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
  perUser: number;
  /** How long a slot outlives its replica's last renewal; renewed every third of it. */
  ttlMs: number;
  logger: Logger;
  /** The store's name, for the log. */
  storeName: string;
}

const LOG_EVERY_MS = 60_000;

/**
 * The per-key and per-user stream limits across every gateway replica: each open stream holds two
 * leases in the shared store (one counted against its key, one against its user), renewed by its
 * replica while the stream lasts and freed when it closes. The key's is taken first and given back
 * when the user's is refused, so a race can refuse a stream it need not have, never admit one too
 * many. While the
 * store fails, streams are counted per process instead (as the rate limiter's insurance does), so
 * an outage of the store does not refuse or fail streams; a warning says so, at most once a minute.
 */
export class SharedStreamSlots implements StreamSlots {
  private readonly held = new Map<string, Lease>(); // slot id -> lease
  private open = 0; // streams admitted through the store and not yet closed
  private readonly fallback: StreamLimits;
  private readonly timer: NodeJS.Timeout;
  private lastWarnAt = -Infinity;

  constructor(
    private readonly store: LeaseStore,
    private readonly opts: SharedSlotsOptions,
  ) {
    this.fallback = new StreamLimits(opts.perKey, opts.perUser);
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(opts.ttlMs / 3)));
    this.timer.unref();
  }

  get perKey(): number {
    return this.opts.perKey;
  }

  get perUser(): number {
    return this.opts.perUser;
  }

  get total(): number {
    return this.open + this.fallback.total;
  }

  async acquire(owner: SlotOwner): Promise<() => void> {
    const keyLease: Lease = { key: owner.key, slotId: randomUUID() };
    const userLease: Lease = { key: owner.user, slotId: randomUUID() };
    try {
      if (!(await this.store.take(keyLease, this.opts.perKey, this.opts.ttlMs))) throw tooManyStreams(this.opts.perKey);
      // Renewed from the moment it is granted: taking the user's lease may wait, and a lease nobody
      // renews meanwhile could lapse and let another stream in.
      this.held.set(keyLease.slotId, keyLease);
      let userTaken: boolean;
      try {
        userTaken = await this.store.take(userLease, this.opts.perUser, this.opts.ttlMs);
      } catch (err) {
        this.release(keyLease);
        throw err;
      }
      if (!userTaken) {
        this.release(keyLease);
        throw tooManyUserStreams(this.opts.perUser);
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.warn(err, 'stream-limit store failed: counting streams per process until it answers again');
      return this.fallback.take(owner);
    }
    this.held.set(userLease.slotId, userLease);
    this.open++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.open--;
      this.release(keyLease);
      this.release(userLease);
    };
  }

  private release(lease: Lease): void {
    this.held.delete(lease.slotId);
    this.free(lease);
  }

  private free(lease: Lease): void {
    // Not freed in the store (it failed): the lease expires within ttlMs anyway.
    this.store.free(lease).catch((err: unknown) => this.warn(err, 'stream-limit store: freeing a slot failed'));
  }

  /** Renews every lease this replica holds (the timer's job; tests call it directly). */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const leases = [...this.held.values()];
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
