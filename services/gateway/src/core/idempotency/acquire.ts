import { decide } from './decide';
import type { KeyStore } from './key-store';
import type { IdempotencyRecord, KeyLease } from './record';

/** What a request with an Idempotency-Key does. */
export type Acquired =
  /** It holds the key: run the route and store its answer under `lease`. */
  | { kind: 'run'; lease: KeyLease }
  /** The key's request already finished: answer with its response. */
  | { kind: 'replay'; status: number; body: unknown }
  /** The key belongs to another request. */
  | { kind: 'mismatch' }
  /** The client went away while waiting for the key's first request. */
  | { kind: 'abandoned' };

export interface KeyRequest {
  userId: number;
  key: string;
  fingerprint: string;
  /** How long this request may hold the key (its route's longest run plus a margin). */
  leaseMs: number;
}

export interface AcquireDeps {
  store: KeyStore;
  /** How long a record lives (IDEMPOTENCY_TTL_HOURS). */
  ttlMs: number;
  /** How often a waiting request looks at the record again. */
  pollMs: number;
  now: () => Date;
  /** Resolves true after `ms`, false as soon as `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<boolean>;
  /** A fresh owner id for each execution. */
  newOwner: () => string;
}

const plus = (d: Date, ms: number): Date => new Date(d.getTime() + ms);

/**
 * Claims the key, or waits for the request holding it and replays its answer. A holder past its
 * lease is presumed dead: one waiter takes the key over and runs the request itself.
 * `signal` aborts the wait (the client disconnected).
 */
export async function acquireKey(deps: AcquireDeps, req: KeyRequest, signal: AbortSignal): Promise<Acquired> {
  const lease = (owner: string): Acquired => ({ kind: 'run', lease: { userId: req.userId, key: req.key, owner } });
  let record: IdempotencyRecord | null = null;
  for (;;) {
    if (!record) {
      const now = deps.now();
      const owner = deps.newOwner();
      const claimed = await deps.store.claim({
        ...req,
        owner,
        now,
        lockedUntil: plus(now, req.leaseMs),
        expiresAt: plus(now, deps.ttlMs),
      });
      if (claimed) return lease(owner);
      record = await deps.store.find(req.userId, req.key);
      // Released or purged between the two statements: claim again.
      if (!record) continue;
    }
    const now = deps.now();
    switch (decide(record, req.fingerprint, now)) {
      case 'absent':
        record = null;
        continue;
      case 'mismatch':
        return { kind: 'mismatch' };
      case 'replay':
        return { kind: 'replay', status: record.responseStatus ?? 500, body: record.responseBody };
      case 'take-over': {
        const owner = deps.newOwner();
        if (await deps.store.takeOver(record, owner, plus(now, req.leaseMs), now)) return lease(owner);
        // Another waiter won: wait for it like for the first owner.
        record = await deps.store.find(req.userId, req.key);
        continue;
      }
      case 'wait':
        if (!(await deps.sleep(deps.pollMs, signal))) return { kind: 'abandoned' };
        record = await deps.store.find(req.userId, req.key);
        continue;
    }
  }
}

/** setTimeout as a promise that an AbortSignal cuts short (resolving false). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (slept: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(slept);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
