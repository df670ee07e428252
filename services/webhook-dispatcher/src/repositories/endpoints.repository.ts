import { rawRowsOf, rowOf, rowsOf, type Knex } from '@mf/db';
import type { SignatureScheme } from '../domain/signing';

/** The only module that speaks SQL about endpoints. */

export interface EndpointRow {
  api_key_id: number;
  user_id: number;
  url: string;
  secret_ciphertext: string;
  /** The job event types it receives. */
  events: string[];
  signature_scheme: SignatureScheme;
  /** The secret before the last rotation, signing beside the new one until previous_secret_expires_at. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  /** First failure of the current unbroken run of failures; null after a 2xx. */
  failing_since: Date | null;
  /** Set when that run outlasted WEBHOOK_DISABLE_AFTER_MS: nothing is sent until the URL is saved again. */
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function findEndpoint(db: Knex, apiKeyId: number): Promise<EndpointRow | undefined> {
  return rowOf<EndpointRow>(db('endpoints').first('*').where({ api_key_id: apiKeyId }));
}

/**
 * The key's endpoint, whether `eventId` already reached it (some attempt answered 2xx) and the
 * highest attempt number recorded for it, in one round trip: all are read before every delivery,
 * so the webhook's POST waits for one query.
 */
export async function findEndpointForEvent(
  db: Knex,
  apiKeyId: number,
  eventId: string,
): Promise<{ endpoint: EndpointRow; delivered: boolean; lastAttempt: number } | undefined> {
  const [row] = await rawRowsOf<EndpointRow & { delivered: boolean | null; last_attempt: number | null }>(
    db.raw(
      `SELECT e.*, d.delivered, d.last_attempt
         FROM endpoints e,
              LATERAL (SELECT bool_or(status_code BETWEEN 200 AND 299) AS delivered, max(attempt) AS last_attempt
                         FROM deliveries WHERE event_id = ? AND api_key_id = e.api_key_id) d
        WHERE e.api_key_id = ?`,
      [eventId, apiKeyId],
    ),
  );
  if (!row) return undefined;
  const { delivered, last_attempt: lastAttempt, ...endpoint } = row;
  return { endpoint, delivered: delivered === true, lastAttempt: lastAttempt ?? 0 };
}

/** Inserts the key's endpoint unless it has one; the new row when this call created it. */
export async function insertEndpointIfAbsent(
  db: Knex,
  row: Pick<EndpointRow, 'api_key_id' | 'user_id' | 'url' | 'secret_ciphertext' | 'events' | 'signature_scheme'>,
): Promise<EndpointRow | undefined> {
  const inserted = await rowsOf<EndpointRow>(
    db('endpoints').insert(row).onConflict('api_key_id').ignore().returning('*'),
  );
  return inserted[0];
}

/** What a save of an existing endpoint changes besides its URL. */
export interface EndpointChanges {
  events?: string[];
  /** A new scheme comes with a new secret, and the previous secret stops at once. */
  scheme?: { signature_scheme: string; secret_ciphertext: string };
}

/**
 * Changes the URL (and the filter or scheme given) of the user's endpoint for this key, enabling
 * it again (a disabled endpoint starts afresh); the updated row, undefined when there is none.
 */
export async function updateEndpoint(
  db: Knex,
  apiKeyId: number,
  userId: number,
  url: string,
  changes: EndpointChanges = {},
): Promise<EndpointRow | undefined> {
  const rows = await rowsOf<EndpointRow>(
    db('endpoints')
      .update({
        url,
        updated_at: db.fn.now(),
        failing_since: null,
        disabled_at: null,
        ...(changes.events ? { events: changes.events } : {}),
        ...(changes.scheme
          ? { ...changes.scheme, previous_secret_ciphertext: null, previous_secret_expires_at: null }
          : {}),
      })
      .where({ api_key_id: apiKeyId, user_id: userId })
      .returning('*'),
  );
  return rows[0];
}

/**
 * Replaces the secret with `next`, keeping the one it replaces until `previousExpiresAt` (none
 * when null). Only if the secret is still `current`, so two rotations at once cannot drop a secret
 * a receiver was just given; false otherwise.
 */
export async function rotateEndpointSecret(
  db: Knex,
  apiKeyId: number,
  userId: number,
  current: string,
  next: string,
  previousExpiresAt: Date | null,
): Promise<boolean> {
  const changed = await db('endpoints')
    .update({
      secret_ciphertext: next,
      previous_secret_ciphertext: previousExpiresAt ? current : null,
      previous_secret_expires_at: previousExpiresAt,
      updated_at: db.fn.now(),
    })
    .where({ api_key_id: apiKeyId, user_id: userId, secret_ciphertext: current });
  return changed > 0;
}

export async function deleteEndpoint(db: Knex, apiKeyId: number, userId: number): Promise<boolean> {
  return (await db('endpoints').where({ api_key_id: apiKeyId, user_id: userId }).delete()) > 0;
}
