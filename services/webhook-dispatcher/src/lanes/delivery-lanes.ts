import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { periodic, type PeriodicTask } from '@mf/runtime';
import {
  claimAttempts,
  releaseAttempt,
  releaseClaims,
  removeAttempt,
  renewClaims,
  type PendingAttempt,
} from '../repositories/pending-attempts.repository';

/** What became of one pending attempt: it leaves the lane, or goes back to it after a pause. */
export type LaneResult = { done: string } | { retryInMs: number; why: string };

export interface LaneOptions {
  /** Attempts of one endpoint in flight at once, fleet-wide (WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency: number;
  /** Attempts in flight at once in this replica, all endpoints (WEBHOOK_MAX_IN_FLIGHT). */
  maxInFlight: number;
  /** How long a claim holds without renewal: a dead replica's attempts come back after this. */
  leaseMs?: number;
  /** How often the lanes are looked at without being woken (leases run out, other replicas' work). */
  pollMs?: number;
}

export interface LaneDeps {
  db: Knex;
  logger: Logger;
  /** Makes one attempt (never throws for a failed POST: that is a result). */
  run: (item: PendingAttempt) => Promise<LaneResult>;
  /** Told how every run ended (its `done` result, `postponed` or `error`), e.g. to count it. */
  onSettled?: (item: PendingAttempt, result: string) => void;
}

const DEFAULT_LEASE_MS = 10_000;
const DEFAULT_POLL_MS = 1000;
/** A run that threw (a database error) is tried again after this. */
const ERROR_PAUSE_MS = 5000;

/**
 * The per-endpoint delivery lanes of one replica (docs/webhooks.md, "Delivery lanes"). Pending
 * attempts live in the database; this claims as many as the replica has room for, never more than
 * the endpoint's cap in flight fleet-wide, and runs each to its end. A slow or hanging endpoint
 * fills only its own cap; the rest of the replica's capacity stays with the other endpoints.
 */
export class DeliveryLanes {
  readonly replica = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private claimer: PeriodicTask | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: LaneDeps,
    private readonly opts: LaneOptions,
  ) {
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Starts claiming (now, on every kick, and every pollMs) and renewing this replica's leases. */
  start(): void {
    this.claimer = periodic('webhook lanes', this.opts.pollMs ?? DEFAULT_POLL_MS, () => this.claim(), this.deps.logger);
    this.heartbeat = setInterval(() => {
      renewClaims(this.deps.db, this.replica, this.leaseMs).catch((err: Error) =>
        this.deps.logger.warn({ err: err.message }, 'could not renew the leases of pending webhook attempts'),
      );
    }, this.leaseMs / 4);
    this.heartbeat.unref();
  }

  /** Something was queued, or a slot freed: look at the lanes now. */
  kick(): void {
    this.claimer?.kick();
  }

  /** Attempts this replica is making now. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * Stops claiming, waits for the attempts in flight until `until` (epoch ms), then gives back
   * what it still holds so another replica takes it at once (a POST still running may then reach
   * its receiver twice: at least once, as always).
   */
  async stop(until: number): Promise<void> {
    await this.claimer?.stop();
    this.claimer = null;
    const left = Math.max(0, until - Date.now());
    await Promise.race([Promise.all([...this.running]), new Promise((r) => setTimeout(r, left).unref())]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await releaseClaims(this.deps.db, this.replica).catch((err: Error) =>
      this.deps.logger.warn({ err: err.message }, 'could not give back pending webhook attempts; their leases run out'),
    );
  }

  private async claim(): Promise<number> {
    const items = await claimAttempts(this.deps.db, {
      replica: this.replica,
      cap: this.opts.endpointConcurrency,
      limit: this.opts.maxInFlight - this.inFlight,
      leaseMs: this.leaseMs,
    });
    for (const item of items) this.launch(item);
    return items.length;
  }

  private launch(item: PendingAttempt): void {
    this.inFlight++;
    const task = this.settle(item).finally(() => {
      this.inFlight--;
      this.running.delete(task);
      this.kick();
    });
    this.running.add(task);
  }

  private async settle(item: PendingAttempt): Promise<void> {
    const { db, logger } = this.deps;
    try {
      // In the trace of the event's publish (its message's headers), not of whatever claimed it.
      const parent = item.message ? propagation.extract(ROOT_CONTEXT, item.message.headers) : ROOT_CONTEXT;
      const result = await context.with(parent, () => this.deps.run(item));
      if ('done' in result) {
        await removeAttempt(db, item.id);
        this.deps.onSettled?.(item, result.done);
      } else {
        logger.warn({ id: item.id, why: result.why }, 'pending webhook attempt postponed');
        await releaseAttempt(db, item.id, result.retryInMs);
        this.deps.onSettled?.(item, 'postponed');
      }
    } catch (err) {
      logger.error({ err, id: item.id }, 'pending webhook attempt failed; it is tried again');
      // Best effort: if this fails too, the lease runs out and the attempt comes back anyway.
      await releaseAttempt(db, item.id, ERROR_PAUSE_MS).catch(() => undefined);
      this.deps.onSettled?.(item, 'error');
    }
  }
}
