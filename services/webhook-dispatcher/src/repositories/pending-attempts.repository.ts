import type { HeldMessage } from '@mf/bus';
import { rawRowsOf, type Knex } from '@mf/db';

/**
 * The only module that speaks SQL about pending attempts: the per-endpoint lanes (docs/webhooks.md,
 * "Delivery lanes"). An attempt waits here, durably, from the moment the consumer takes its event
 * off the broker until a lane worker has made it; a worker claims it for a lease it renews while
 * the attempt runs, so the attempts of a replica that died come back when its leases run out.
 */

export interface PendingAttempt {
  id: number;
  api_key_id: number;
  user_id: number;
  event_id: string;
  kind: 'event' | 'resend';
  /** The bus's attempt number of an event (1 on first delivery); 0 for a resend. */
  attempt: number;
  /** An event's broker message: the job event, and what schedules its retry. */
  message: HeldMessage | null;
  /** A resend's attempt whose event is sent again. */
  delivery_id: number | null;
}

/** Statements that decide who sends what are serialised across replicas by this advisory lock. */
const CLAIM_LOCK = 'webhooks.pending_attempts.claim';

/**
 * Queues the next attempt of a job event for the key's endpoint, unless the key has no enabled
 * endpoint of this user, a 2xx of the event is already recorded, or this very attempt is queued
 * (a redelivered copy). True when it was queued.
 */
export async function queueEventAttempt(
  db: Knex,
  a: { apiKeyId: number; userId: number; eventId: string; attempt: number; message: HeldMessage },
): Promise<boolean> {
  const rows = await rawRowsOf<{ id: number }>(
    db.raw(
      `INSERT INTO pending_attempts (api_key_id, user_id, event_id, kind, attempt, message)
       SELECT CAST(? AS bigint), CAST(? AS bigint), CAST(? AS text), 'event', CAST(? AS integer), CAST(? AS jsonb)
        WHERE EXISTS (SELECT 1 FROM endpoints WHERE api_key_id = ? AND user_id = ? AND disabled_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM deliveries WHERE api_key_id = ? AND event_id = ? AND succeeded)
       ON CONFLICT (api_key_id, event_id, attempt) WHERE kind = 'event' DO NOTHING
       RETURNING id`,
      [
        a.apiKeyId,
        a.userId,
        a.eventId,
        a.attempt,
        JSON.stringify(a.message),
        a.apiKeyId,
        a.userId,
        a.apiKeyId,
        a.eventId,
      ],
    ),
  );
  return rows.length > 0;
}

/** Queues one resend of the event of `deliveryId` (a resend request taken off the broker). */
export async function queueResend(
  db: Knex,
  r: { apiKeyId: number; userId: number; deliveryId: number },
): Promise<void> {
  await db.raw(
    `INSERT INTO pending_attempts (api_key_id, user_id, event_id, kind, attempt, delivery_id)
     SELECT api_key_id, user_id, event_id, 'resend', 0, id FROM deliveries
      WHERE id = ? AND api_key_id = ? AND user_id = ?`,
    [r.deliveryId, r.apiKeyId, r.userId],
  );
}

/**
 * Recover's queueing, in one statement under the key's lock (so two calls at once see each
 * other's work): for every real event of the key with an attempt at or after `since` whose last
 * attempt failed, one resend of that attempt, oldest first, at most `max`; except an event that is
 * queued already or was sent again (resend or recover) at or after `since`. Returns how many.
 */
export async function queueRecovered(
  db: Knex,
  r: { apiKeyId: number; userId: number; since: Date; max: number },
): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.raw('SELECT pg_advisory_xact_lock(hashtext(?), ?)', ['webhooks.recover', r.apiKeyId]);
    const rows = await rawRowsOf<{ id: number }>(
      tx.raw(
        `INSERT INTO pending_attempts (api_key_id, user_id, event_id, kind, attempt, delivery_id)
         SELECT l.api_key_id, l.user_id, l.event_id, 'resend', 0, l.id
           FROM (SELECT DISTINCT ON (event_id) id, api_key_id, user_id, event_id, succeeded, request_body
                   FROM deliveries
                  WHERE api_key_id = ? AND user_id = ? AND NOT test
                    AND event_id IN (SELECT event_id FROM deliveries WHERE api_key_id = ? AND created_at >= ?)
                  ORDER BY event_id, id DESC) l
          WHERE NOT l.succeeded AND l.request_body IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM deliveries r
                             WHERE r.api_key_id = l.api_key_id AND r.event_id = l.event_id AND r.resend
                               AND r.created_at >= ?)
            AND NOT EXISTS (SELECT 1 FROM pending_attempts p
                             WHERE p.api_key_id = l.api_key_id AND p.event_id = l.event_id)
          ORDER BY l.id
          LIMIT ?
         RETURNING id`,
        [r.apiKeyId, r.userId, r.apiKeyId, r.since, r.since, r.max],
      ),
    );
    return rows.length;
  });
}

/**
 * Claims up to `limit` waiting attempts for `replica` until `leaseMs` from now: per endpoint at
 * most `cap` claimed at once fleet-wide (claims held by other replicas count), one attempt of an
 * event at a time, each lane in arrival order, lanes served round-robin (every lane's first
 * waiting attempt before any lane's second). Serialised across replicas, so the cap holds.
 */
export async function claimAttempts(
  db: Knex,
  c: { replica: string; cap: number; limit: number; leaseMs: number },
): Promise<PendingAttempt[]> {
  if (c.limit <= 0) return [];
  return db.transaction(async (tx) => {
    await tx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [CLAIM_LOCK]);
    return rawRowsOf<PendingAttempt>(
      tx.raw(
        `WITH busy AS (
           SELECT api_key_id, count(*) AS n FROM pending_attempts WHERE claimed_until > now() GROUP BY api_key_id
         ), waiting AS (
           SELECT p.id, p.api_key_id,
                  row_number() OVER (PARTITION BY p.api_key_id ORDER BY p.id) AS place,
                  row_number() OVER (PARTITION BY p.api_key_id, p.event_id ORDER BY p.id) AS in_event
             FROM pending_attempts p
            WHERE (p.claimed_until IS NULL OR p.claimed_until <= now())
              AND NOT EXISTS (SELECT 1 FROM pending_attempts q
                               WHERE q.api_key_id = p.api_key_id AND q.event_id = p.event_id
                                 AND q.claimed_until > now())
         ), picked AS (
           SELECT w.id FROM waiting w LEFT JOIN busy b ON b.api_key_id = w.api_key_id
            WHERE w.in_event = 1 AND w.place + COALESCE(b.n, 0) <= ?
            ORDER BY w.place, w.id
            LIMIT ?
         )
         UPDATE pending_attempts p
            SET claimed_by = ?, claimed_until = now() + make_interval(secs => CAST(? AS double precision) / 1000)
           FROM picked WHERE p.id = picked.id
         RETURNING p.id, p.api_key_id, p.user_id, p.event_id, p.kind, p.attempt, p.message, p.delivery_id`,
        [c.cap, c.limit, c.replica, c.leaseMs],
      ),
    );
  });
}

/** Extends the leases of every attempt `replica` holds; returns how many it holds. */
export async function renewClaims(db: Knex, replica: string, leaseMs: number): Promise<number> {
  return db('pending_attempts')
    .update({ claimed_until: msFromNow(db, leaseMs) })
    .where({ claimed_by: replica });
}

/** The attempt was made (or dropped): it leaves the lane. */
export async function removeAttempt(db: Knex, id: number): Promise<void> {
  await db('pending_attempts').where({ id }).delete();
}

/**
 * Gives a claimed attempt back to its lane: at once (`afterMs` 0: a replica stopping), or after
 * `afterMs` (it could not be finished, e.g. the broker was away), counting against the lane's cap
 * meanwhile.
 */
export async function releaseAttempt(db: Knex, id: number, afterMs = 0): Promise<void> {
  await db('pending_attempts')
    .update({
      claimed_by: null,
      claimed_until: afterMs > 0 ? msFromNow(db, afterMs) : null,
    })
    .where({ id });
}

/** Gives back every attempt `replica` still holds (it is stopping). */
export async function releaseClaims(db: Knex, replica: string): Promise<void> {
  await db('pending_attempts').update({ claimed_by: null, claimed_until: null }).where({ claimed_by: replica });
}

/** Attempts waiting or running, all lanes (the backlog an operator scales on). */
export async function countPending(db: Knex): Promise<number> {
  const [row] = await rawRowsOf<{ n: number }>(db.raw('SELECT count(*) AS n FROM pending_attempts'));
  return row?.n ?? 0;
}

/** The database's now plus `ms` (its clock, so replicas agree). */
function msFromNow(db: Knex, ms: number): Knex.Raw {
  return db.raw('now() + make_interval(secs => CAST(? AS double precision) / 1000)', [ms]);
}
