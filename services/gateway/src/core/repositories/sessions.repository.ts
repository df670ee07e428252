import { rowOf, type Knex } from '@mf/db';
import type { UserRow } from './users.repository';

/** The only module that speaks SQL about sessions. */

export interface SessionRow {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: Date;
  expires_at: Date;
  last_seen_at: Date;
  user_agent: string | null;
}

export async function insertSession(db: Knex, row: Omit<SessionRow, 'created_at'>): Promise<void> {
  await db('sessions').insert({ ...row, created_at: row.last_seen_at });
}

/** A session not yet expired at `now`, with its user's current role (a role change counts at once). */
export async function findLiveSession(
  db: Knex,
  idHash: string,
  now: Date,
): Promise<(SessionRow & { role: UserRow['role'] }) | undefined> {
  return rowOf<SessionRow & { role: UserRow['role'] }>(
    db('sessions')
      .first('sessions.*', 'users.role')
      .join('users', 'users.id', 'sessions.user_id')
      .where('sessions.id_hash', idHash)
      .andWhere('sessions.expires_at', '>', now),
  );
}

export async function touchSession(db: Knex, idHash: string, seenAt: Date, expiresAt: Date): Promise<void> {
  await db('sessions').update({ last_seen_at: seenAt, expires_at: expiresAt }).where({ id_hash: idHash });
}

export async function deleteSession(db: Knex, idHash: string): Promise<void> {
  await db('sessions').where({ id_hash: idHash }).delete();
}

/** Drops the user's expired sessions (called at sign-in, so the table stays bounded per user). */
export async function deleteExpiredSessions(db: Knex, userId: number, now: Date): Promise<void> {
  await db('sessions').where({ user_id: userId }).andWhere('expires_at', '<=', now).delete();
}
