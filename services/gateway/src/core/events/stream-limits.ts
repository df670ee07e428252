import { AppError } from '@mf/errors';

/** Concurrent event streams one API key may hold open (on one gateway, or on all with a shared store). */
export const DEFAULT_STREAMS_PER_KEY = 10;
/** Concurrent event streams one user may hold open over all their keys: more keys buy no more streams. */
export const DEFAULT_STREAMS_PER_USER = 25;

export function tooManyStreams(limit: number): AppError {
  return new AppError('rate_limited', { error: `Too many open event streams for this API key (limit ${limit})` });
}

export function tooManyUserStreams(limit: number): AppError {
  return new AppError('rate_limited', { error: `Too many open event streams for this user (limit ${limit})` });
}

/** Who a stream counts against: its key and the key's user (slot-store names, e.g. `key:7`, `user:3`). */
export interface SlotOwner {
  key: string;
  user: string;
}

/** The per-key and per-user stream limits: a slot per open stream, wherever the count lives. */
export interface StreamSlots {
  readonly perKey: number;
  readonly perUser: number;
  /** Takes a slot for the key and one for its user, or throws the 429 of the limit reached; the returned function frees them (once). */
  acquire(owner: SlotOwner): Promise<() => void>;
  /** Open streams this replica holds slots for (metrics, tests). */
  readonly total: number;
  /** Stops renewing (a shutdown step); slots still held then expire in the store. */
  stop(): Promise<void>;
}

/** Counts of open streams by name, up to a limit. */
class Counts {
  private readonly open = new Map<string, number>();

  has(name: string, limit: number): boolean {
    return (this.open.get(name) ?? 0) < limit;
  }

  add(name: string): void {
    this.open.set(name, (this.open.get(name) ?? 0) + 1);
  }

  remove(name: string): void {
    const left = (this.open.get(name) ?? 1) - 1;
    if (left <= 0) this.open.delete(name);
    else this.open.set(name, left);
  }
}

/** Counts the open streams of each key and user on this replica (one gateway, or a shared store's stand-in). */
export class StreamLimits implements StreamSlots {
  private readonly keys = new Counts();
  private readonly users = new Counts();
  private held = 0;

  constructor(
    readonly perKey = DEFAULT_STREAMS_PER_KEY,
    readonly perUser = DEFAULT_STREAMS_PER_USER,
  ) {}

  async acquire(owner: SlotOwner): Promise<() => void> {
    return Promise.resolve(this.take(owner));
  }

  /** The synchronous take behind acquire. */
  take(owner: SlotOwner): () => void {
    if (!this.keys.has(owner.key, this.perKey)) throw tooManyStreams(this.perKey);
    if (!this.users.has(owner.user, this.perUser)) throw tooManyUserStreams(this.perUser);
    this.keys.add(owner.key);
    this.users.add(owner.user);
    this.held++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.keys.remove(owner.key);
      this.users.remove(owner.user);
      this.held--;
    };
  }

  get total(): number {
    return this.held;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
