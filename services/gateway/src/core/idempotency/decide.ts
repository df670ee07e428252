import type { IdempotencyRecord } from './record';

/**
 * What a request does about the record already holding its key:
 * - absent: the record expired, so it counts as never written (claim the key afresh);
 * - mismatch: the key was used for another request (422, nothing done);
 * - replay: answer with the stored response;
 * - take-over: still running, but past its lease: the owner is presumed dead, run it ourselves;
 * - wait: still running within its lease.
 */
export type Decision = 'absent' | 'mismatch' | 'replay' | 'take-over' | 'wait';

export function decide(record: IdempotencyRecord, fingerprint: string, now: Date): Decision {
  if (record.expiresAt.getTime() <= now.getTime()) return 'absent';
  if (record.fingerprint !== fingerprint) return 'mismatch';
  if (record.state === 'done') return 'replay';
  return record.lockedUntil.getTime() <= now.getTime() ? 'take-over' : 'wait';
}

/**
 * Statuses that free the key instead of being stored: the request was refused before doing
 * anything (validation, authentication, scope, rate limit), so the client may fix it and retry
 * with the same key, as Stripe does. Everything else, 5xx included, is stored and replayed.
 */
const RELEASING = new Set([400, 401, 403, 429]);

/**
 * A route that forwarded the key's digest to the service doing the work (jobs.submit recognises a
 * retry by it) makes a 503 ("retry shortly": the outcome is unknown) free the key too: the retry
 * with the same key then gets the job the first attempt made, if it made one, not a second charge.
 */
export function releasesKey(status: number, forwarded = false): boolean {
  return RELEASING.has(status) || (status === 503 && forwarded);
}
