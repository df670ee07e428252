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

export async function updateUserRole(db: Knex, id: number, role: UserRow['role']): Promise<UserRow | undefined> {
  const [row] = await db('users').update({ role }).where({ id }).returning('*');
  return row;
}

/** Users whose email contains `emailPart` (any case), newest first: the dashboard's admin search. */
export async function searchUsers(db: Knex, emailPart: string, limit: number): Promise<Omit<UserRow, 'password_hash'>[]> {
  const q = db('users').select('id', 'email', 'role', 'created_at').orderBy('id', 'desc').limit(limit);
  // LIKE wildcards typed by the admin are matched literally.
  if (emailPart) q.whereRaw("lower(email) LIKE '%' || ? || '%' ESCAPE '\\'", [emailPart.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)]);
  return q;
}
