import type { Knex } from '@mf/db';
import type { Claim, KeyStore } from './key-store';
import type { IdempotencyRecord, KeyLease } from './record';

const TABLE = 'idempotency_keys';

interface Row {
  user_id: number;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
  locked_until: Date;
  owner: string;
  created_at: Date;
  expires_at: Date;
}

const toRecord = (r: Row): IdempotencyRecord => ({
  userId: r.user_id,
  key: r.key,
  fingerprint: r.fingerprint,
  state: r.state,
  responseStatus: r.response_status,
  responseBody: r.response_body,
  lockedUntil: r.locked_until,
  owner: r.owner,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** Idempotency-Key records in gateway.idempotency_keys. Times come from the caller's clock. */
export function pgKeyStore(db: Knex): KeyStore {
  return {
    async claim(c: Claim) {
      // Concurrent claims of one key serialise on the primary key: one inserts, the others see
      // the conflict. An expired record is overwritten as if it were absent.
      const result = await db.raw<{ rows: unknown[] }>(
        `INSERT INTO idempotency_keys (user_id, key, fingerprint, state, locked_until, owner, created_at, expires_at)
         VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?)
         ON CONFLICT (user_id, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, state = 'in_progress', response_status = NULL, response_body = NULL,
           locked_until = EXCLUDED.locked_until, owner = EXCLUDED.owner, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
         RETURNING owner`,
        [c.userId, c.key, c.fingerprint, c.lockedUntil, c.owner, c.now, c.expiresAt],
      );
      return result.rows.length === 1;
    },

    async find(userId, key) {
      const row = (await db(TABLE).first('*').where({ user_id: userId, key })) as Row | undefined;
      return row ? toRecord(row) : null;
    },

    async takeOver(record, owner, lockedUntil, now) {
      const n = await db(TABLE)
        .update({ owner, locked_until: lockedUntil })
        .where({
          user_id: record.userId,
          key: record.key,
          state: 'in_progress',
          owner: record.owner,
          locked_until: record.lockedUntil,
        })
        .andWhere('locked_until', '<=', now);
      return n === 1;
    },

    async complete(lease: KeyLease, status, body) {
      const n = await db(TABLE)
        .update({
          state: 'done',
          response_status: status,
          response_body: db.raw('?::json', [JSON.stringify(body ?? null)]),
        })
        .where({ user_id: lease.userId, key: lease.key, owner: lease.owner, state: 'in_progress' });
      return n === 1;
    },

    async release(lease: KeyLease) {
      await db(TABLE)
        .delete()
        .where({ user_id: lease.userId, key: lease.key, owner: lease.owner, state: 'in_progress' });
    },

    async purgeExpired(now, limit) {
      const result = await db.raw<{ rowCount: number | null }>(
        'DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)',
        [now, limit],
      );
      return result.rowCount ?? 0;
    },
  };
}
