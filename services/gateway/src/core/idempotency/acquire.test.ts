import { acquireKey, type AcquireDeps, type KeyRequest } from './acquire';
import type { KeyStore } from './key-store';
import type { IdempotencyRecord } from './record';

/** A KeyStore in a Map with the Postgres store's rules, on a clock the test moves. */
function memoryStore(): KeyStore & { rows: Map<string, IdempotencyRecord> } {
  const rows = new Map<string, IdempotencyRecord>();
  const id = (userId: number, key: string) => `${userId}:${key}`;
  return {
    rows,
    async claim(c) {
      const existing = rows.get(id(c.userId, c.key));
      if (existing && existing.expiresAt > c.now) return false;
      rows.set(id(c.userId, c.key), {
        ...c,
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        createdAt: c.now,
      });
      return true;
    },
    async find(userId, key) {
      const r = rows.get(id(userId, key));
      return r ? { ...r } : null;
    },
    async takeOver(record, owner, lockedUntil, now) {
      const r = rows.get(id(record.userId, record.key));
      if (
        !r ||
        r.state !== 'in_progress' ||
        r.owner !== record.owner ||
        r.lockedUntil.getTime() !== record.lockedUntil.getTime() ||
        r.lockedUntil > now
      )
        return false;
      Object.assign(r, { owner, lockedUntil });
      return true;
    },
    async complete(lease, status, body) {
      const r = rows.get(id(lease.userId, lease.key));
      if (!r || r.owner !== lease.owner || r.state !== 'in_progress') return false;
      Object.assign(r, { state: 'done', responseStatus: status, responseBody: body });
      return true;
    },
    async release(lease) {
      const r = rows.get(id(lease.userId, lease.key));
      if (r && r.owner === lease.owner && r.state === 'in_progress') rows.delete(id(lease.userId, lease.key));
    },
    async purgeExpired() {
      return 0;
    },
  };
}

describe('acquireKey', () => {
  let clock: number;
  let store: ReturnType<typeof memoryStore>;
  let owners: number;
  /** Runs between polls of a waiting request (the test's stand-in for time passing). */
  let onSleep: () => void;
  let deps: AcquireDeps;
  const req: KeyRequest = { userId: 1, key: 'k1', fingerprint: 'fp', leaseMs: 1000 };
  const open = () => new AbortController().signal;

  beforeEach(() => {
    clock = Date.parse('2030-01-01T00:00:00Z');
    store = memoryStore();
    owners = 0;
    onSleep = () => undefined;
    deps = {
      store,
      ttlMs: 24 * 3_600_000,
      pollMs: 50,
      now: () => new Date(clock),
      sleep: async (ms, signal) => {
        if (signal.aborted) return false;
        clock += ms;
        onSleep();
        return !signal.aborted;
      },
      newOwner: () => `owner-${++owners}`,
    };
  });

  it('claims a key nobody holds, with a lease and an expiry', async () => {
    const got = await acquireKey(deps, req, open());
    expect(got).toEqual({ kind: 'run', lease: { userId: 1, key: 'k1', owner: 'owner-1' } });
    expect(store.rows.get('1:k1')).toMatchObject({
      state: 'in_progress',
      lockedUntil: new Date(clock + 1000),
      expiresAt: new Date(clock + 24 * 3_600_000),
    });
  });

  it('replays the stored answer of a finished request', async () => {
    const first = await acquireKey(deps, req, open());
    if (first.kind !== 'run') throw new Error('expected run');
    await store.complete(first.lease, 202, { job_id: 'job_1' });
    expect(await acquireKey(deps, req, open())).toEqual({ kind: 'replay', status: 202, body: { job_id: 'job_1' } });
  });

  it('waits for a running request, then replays its answer', async () => {
    const first = await acquireKey(deps, req, open());
    if (first.kind !== 'run') throw new Error('expected run');
    let polls = 0;
    onSleep = () => {
      if (++polls === 3) void store.complete(first.lease, 200, { project: { id: 'prj_1' } });
    };
    expect(await acquireKey(deps, req, open())).toEqual({
      kind: 'replay',
      status: 200,
      body: { project: { id: 'prj_1' } },
    });
    expect(polls).toBe(3);
  });

  it('refuses the same key for another request', async () => {
    await acquireKey(deps, req, open());
    expect(await acquireKey(deps, { ...req, fingerprint: 'other' }, open())).toEqual({ kind: 'mismatch' });
  });

  it('takes over a request whose lease passed while it waited, and the old owner can no longer store', async () => {
    const first = await acquireKey(deps, req, open());
    if (first.kind !== 'run') throw new Error('expected run');
    const second = await acquireKey(deps, req, open());
    expect(second).toEqual({ kind: 'run', lease: { userId: 1, key: 'k1', owner: 'owner-3' } });
    expect(clock).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:01Z'));
    expect(await store.complete(first.lease, 202, { late: true })).toBe(false);
    if (second.kind === 'run') expect(await store.complete(second.lease, 202, { job_id: 'job_2' })).toBe(true);
  });

  it('lets only one of two waiters take over', async () => {
    await acquireKey(deps, req, open());
    clock += 1000;
    const record = (await store.find(1, 'k1'))!;
    expect(await store.takeOver(record, 'a', new Date(clock + 1000), new Date(clock))).toBe(true);
    expect(await store.takeOver(record, 'b', new Date(clock + 1000), new Date(clock))).toBe(false);
  });

  it('claims again a key released while it waited, and runs', async () => {
    const first = await acquireKey(deps, req, open());
    if (first.kind !== 'run') throw new Error('expected run');
    onSleep = () => void store.release(first.lease);
    expect(await acquireKey(deps, req, open())).toMatchObject({ kind: 'run' });
  });

  it('claims an expired key afresh, even for another request', async () => {
    const first = await acquireKey(deps, req, open());
    if (first.kind !== 'run') throw new Error('expected run');
    await store.complete(first.lease, 202, { job_id: 'job_1' });
    clock += 24 * 3_600_000;
    expect(await acquireKey(deps, { ...req, fingerprint: 'other' }, open())).toMatchObject({ kind: 'run' });
    expect(store.rows.get('1:k1')).toMatchObject({ fingerprint: 'other', state: 'in_progress', responseStatus: null });
  });

  it('stops waiting when the client goes away', async () => {
    await acquireKey(deps, req, open());
    const ac = new AbortController();
    onSleep = () => ac.abort();
    expect(await acquireKey(deps, req, ac.signal)).toEqual({ kind: 'abandoned' });
  });

  it('keeps keys of different users apart', async () => {
    await acquireKey(deps, req, open());
    expect(await acquireKey(deps, { ...req, userId: 2, fingerprint: 'other' }, open())).toMatchObject({ kind: 'run' });
  });
});
