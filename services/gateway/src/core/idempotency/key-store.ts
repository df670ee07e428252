import type { IdempotencyRecord, KeyLease } from './record';

export interface Claim extends KeyLease {
  fingerprint: string;
  now: Date;
  lockedUntil: Date;
  expiresAt: Date;
}

/** Where Idempotency-Key records live (Postgres: pg-key-store.ts; tests may use a fake). */
export interface KeyStore {
  /** Takes the key when no record holds it or its record expired; false when a live record exists. */
  claim(claim: Claim): Promise<boolean>;
  find(userId: number, key: string): Promise<IdempotencyRecord | null>;
  /**
   * Takes over a record still in progress past its lease, only if it is still held by the same
   * owner under the same lease: of several waiters, exactly one wins.
   */
  takeOver(record: IdempotencyRecord, owner: string, lockedUntil: Date, now: Date): Promise<boolean>;
  /** Stores the response; false when this owner no longer holds the key (it was taken over). */
  complete(lease: KeyLease, status: number, body: unknown): Promise<boolean>;
  /** Deletes the record (the request did nothing), if this owner still holds it. */
  release(lease: KeyLease): Promise<void>;
  /** Deletes up to `limit` expired records; returns how many. */
  purgeExpired(now: Date, limit: number): Promise<number>;
}
