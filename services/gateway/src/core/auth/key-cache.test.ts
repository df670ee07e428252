import type { AuthContext } from './auth-context';
import { KeyCache } from './key-cache';

const alice: AuthContext = { userId: 7, apiKeyId: 11, scopes: ['models:read'] };
const bob: AuthContext = { userId: 8, apiKeyId: 12, scopes: ['models:read', 'jobs:read'] };

/** A database of keys by hash that counts lookups and can hold one until released. */
function keyTable(rows: Record<string, AuthContext>) {
  let lookups = 0;
  let gate: Promise<void> | null = null;
  return {
    rows,
    get lookups() {
      return lookups;
    },
    /** The next lookups wait until the returned function is called (they read the table after it). */
    hold(): () => void {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    load: (hash: string) => async (): Promise<AuthContext | null> => {
      lookups++;
      const waitFor = gate;
      if (waitFor) await waitFor;
      return rows[hash] ?? null;
    },
  };
}

describe('KeyCache', () => {
  let now: number;
  let live: boolean;
  const cache = (ttlMs = 5000, maxEntries?: number) =>
    new KeyCache({ ttlMs, maxEntries, live: () => live, now: () => now });
  beforeEach(() => {
    now = 1_000_000;
    live = true;
  });

  it('answers an active key from memory after its first lookup, until the TTL ends', async () => {
    const db = keyTable({ a: alice });
    const keys = cache(5000);
    expect(await keys.lookup('a', db.load('a'))).toEqual(alice);
    expect(await keys.lookup('a', db.load('a'))).toEqual(alice);
    expect(db.lookups).toBe(1);
    now += 5000;
    expect(await keys.lookup('a', db.load('a'))).toEqual(alice);
    expect(db.lookups).toBe(2);
  });

  it('never caches an unknown or revoked key', async () => {
    const db = keyTable({});
    const keys = cache();
    expect(await keys.lookup('x', db.load('x'))).toBeNull();
    expect(await keys.lookup('x', db.load('x'))).toBeNull();
    expect(db.lookups).toBe(2);
    expect(keys.size).toBe(0);
  });

  it('forgets a revoked key at once, leaving the others', async () => {
    const db = keyTable({ a: alice, b: bob });
    const keys = cache();
    await keys.lookup('a', db.load('a'));
    await keys.lookup('b', db.load('b'));
    delete db.rows.a;
    keys.evictKey(alice.apiKeyId);
    expect(await keys.lookup('a', db.load('a'))).toBeNull();
    expect(await keys.lookup('b', db.load('b'))).toEqual(bob);
    expect(db.lookups).toBe(3);
  });

  it('does not keep what a lookup read before a revocation that came while it ran', async () => {
    const db = keyTable({ a: alice });
    const keys = cache();
    const release = db.hold();
    const inFlight = keys.lookup('a', db.load('a'));
    // The row was read as active (the lookup is concurrent with the revocation), then revoked.
    keys.evictKey(alice.apiKeyId);
    release();
    expect(await inFlight).toEqual(alice);
    delete db.rows.a;
    expect(await keys.lookup('a', db.load('a'))).toBeNull();
  });

  it('makes a request after a revocation look the key up again instead of joining a lookup from before it', async () => {
    const db = keyTable({ a: alice });
    const keys = cache();
    const release = db.hold();
    const before = keys.lookup('a', db.load('a'));
    keys.evictKey(alice.apiKeyId);
    delete db.rows.a;
    const after = keys.lookup('a', db.load('a'));
    release();
    await before;
    expect(await after).toBeNull();
    expect(db.lookups).toBe(2);
  });

  it('shares one lookup between concurrent requests of the same key', async () => {
    const db = keyTable({ a: alice });
    const keys = cache();
    const release = db.hold();
    const both = Promise.all([keys.lookup('a', db.load('a')), keys.lookup('a', db.load('a'))]);
    release();
    expect(await both).toEqual([alice, alice]);
    expect(db.lookups).toBe(1);
  });

  it('is not used while revocations cannot reach it (broker away), and starts empty after clear()', async () => {
    const db = keyTable({ a: alice });
    const keys = cache();
    await keys.lookup('a', db.load('a'));
    live = false;
    await keys.lookup('a', db.load('a'));
    await keys.lookup('a', db.load('a'));
    expect(db.lookups).toBe(3);
    live = true;
    keys.clear();
    expect(keys.size).toBe(0);
    await keys.lookup('a', db.load('a'));
    expect(db.lookups).toBe(4);
  });

  it('is off with a TTL of 0', async () => {
    const db = keyTable({ a: alice });
    const keys = cache(0);
    await keys.lookup('a', db.load('a'));
    await keys.lookup('a', db.load('a'));
    expect(db.lookups).toBe(2);
  });

  it('keeps at most maxEntries keys, dropping the oldest', async () => {
    const db = keyTable({ a: alice, b: bob });
    const keys = cache(5000, 1);
    await keys.lookup('a', db.load('a'));
    await keys.lookup('b', db.load('b'));
    expect(keys.size).toBe(1);
    await keys.lookup('b', db.load('b'));
    await keys.lookup('a', db.load('a'));
    expect(db.lookups).toBe(3);
  });

  it('hands out a context no request can change for another', async () => {
    const db = keyTable({ a: { ...alice, scopes: [...alice.scopes] } });
    const keys = cache();
    const auth = (await keys.lookup('a', db.load('a')))!;
    await keys.lookup('a', db.load('a'));
    const cached = (await keys.lookup('a', db.load('a')))!;
    expect(() => cached.scopes.push('video:write')).toThrow(TypeError);
    expect(auth.scopes).toEqual(['models:read']);
  });
});
