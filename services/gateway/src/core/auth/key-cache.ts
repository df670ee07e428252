import type { AuthContext } from './auth-context';

export interface KeyCacheOptions {
  /** How long an entry is trusted without a revocation event: the safety net when one is missed (KEY_CACHE_TTL_MS). */
  ttlMs: number;
  /** Most entries kept; the oldest go first. */
  maxEntries?: number;
  /**
   * Whether revocation events are being received right now (the broker connection is up). While
   * not, nothing is read from or put into the cache: a revocation could be missed unseen.
   */
  live: () => boolean;
  now?: () => number;
}

interface Entry {
  auth: AuthContext;
  expiresAt: number;
}

export const DEFAULT_KEY_CACHE_ENTRIES = 10_000;

/**
 * A short-lived, per-replica cache of API key lookups (key hash -> owner, key id, scopes), so a
 * request does not need its own database round trip. Only active keys are cached (an unknown or
 * revoked key is looked up every time). A revocation evicts the key at once, on this replica
 * directly and on every other through the broker (key-revocation-feed.ts); the TTL bounds what a
 * lost event could leave behind. docs/decisions.md "API key cache".
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Lookups in flight by hash: concurrent misses of one key share one query. */
  private readonly loading = new Map<string, Promise<AuthContext | null>>();
  /**
   * Bumped by every eviction and clear: a lookup that started before one must not store what it
   * read (it may have read the key just before it was revoked).
   */
  private generation = 0;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly opts: KeyCacheOptions) {
    this.maxEntries = opts.maxEntries ?? DEFAULT_KEY_CACHE_ENTRIES;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached context of `hash`, or `load()`'s answer (stored when the key is active and nothing was evicted meanwhile). */
  async lookup(hash: string, load: () => Promise<AuthContext | null>): Promise<AuthContext | null> {
    if (this.opts.ttlMs <= 0 || !this.opts.live()) return load();
    const hit = this.entries.get(hash);
    if (hit) {
      if (hit.expiresAt > this.now()) return hit.auth;
      this.entries.delete(hash);
    }
    const inFlight = this.loading.get(hash);
    if (inFlight) return inFlight;
    const started = this.generation;
    const pending: Promise<AuthContext | null> = load().finally(() => {
      if (this.loading.get(hash) === pending) this.loading.delete(hash);
    });
    this.loading.set(hash, pending);
    const auth = await pending;
    if (auth && started === this.generation && this.opts.live()) this.store(hash, auth);
    return auth;
  }

  /** Forgets the key with this id (revoked); lookups in flight do not store what they read. */
  evictKey(apiKeyId: number): void {
    this.generation++;
    // Lookups in flight may have read the key before its revocation: later callers must not join them.
    this.loading.clear();
    for (const [hash, entry] of this.entries) if (entry.auth.apiKeyId === apiKeyId) this.entries.delete(hash);
  }

  /** Forgets everything (revocation events may have been missed, e.g. while the broker was away). */
  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
  }

  private store(hash: string, auth: AuthContext): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    // One object serves many requests: frozen, so no request can change another's context.
    const shared = Object.freeze({ ...auth, scopes: Object.freeze([...auth.scopes]) as string[] });
    this.entries.set(hash, { auth: shared, expiresAt: this.now() + this.opts.ttlMs });
  }
}
