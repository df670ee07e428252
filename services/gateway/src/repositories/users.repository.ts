import type { Knex } from '@mf/db';

export interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  role: 'user' | 'admin';
  created_at: Date;
}

export async function insertUser(db: Knex, user: { email: string; password_hash: string | null }): Promise<UserRow> {
  const [row] = await db('users').insert(user).returning('*');
  return row;
}

export async function findUserByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return db('users').first('*').whereRaw('lower(email) = lower(?)', [email]);
}

export async function findUserById(db: Knex, id: number): Promise<UserRow | undefined> {
  return db('users').first('*').where({ id });
}
