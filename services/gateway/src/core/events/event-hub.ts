import type { LiveEvent } from './live-event';

export type LiveListener = (event: LiveEvent) => void;

/**
 * This replica's fan-out of live job events to its open streams, by user. Every replica receives
 * every event (its own broker queue), so a stream on any replica sees every event of its user.
 */
export class EventHub {
  private readonly byUser = new Map<number, Set<LiveListener>>();

  /** Listens to one user's events; returns the function that stops listening. */
  subscribe(userId: number, listener: LiveListener): () => void {
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byUser.get(userId) === set) this.byUser.delete(userId);
    };
  }

  /** Whether any stream of this replica listens to the user (else its events need no checking). */
  listensTo(userId: unknown): boolean {
    return typeof userId === 'number' && this.byUser.has(userId);
  }

  publish(event: LiveEvent): void {
    const set = this.byUser.get(event.userId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }

  /** Open listeners (metrics, tests). */
  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }
}
