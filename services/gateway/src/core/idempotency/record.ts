/** One Idempotency-Key of one user, as stored (table gateway.idempotency_keys). */
export interface IdempotencyRecord {
  userId: number;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  responseStatus: number | null;
  responseBody: unknown;
  /** The running owner's lease: past it, the owner is presumed dead. */
  lockedUntil: Date;
  /** Which execution holds the lease. */
  owner: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Identifies one execution's hold on a key: completing or releasing needs it. */
export interface KeyLease {
  userId: number;
  key: string;
  owner: string;
}
