import { rowOf, rowsOf, type Knex } from '@mf/db';

export interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  role: 'user' | 'admin';
  /** Credits promised at sign-up (SIGNUP_CREDITS then); granted once billing confirms, at signup_credits_granted_at. */
  signup_credits: number;
  signup_credits_granted_at: Date | null;
  created_at: Date;
}

export async function insertUser(
  db: Knex,
  user: { email: string; password_hash: string | null; signup_credits?: number },
): Promise<UserRow> {
  const [row] = await rowsOf<UserRow>(db('users').insert(user).returning('*'));
  return row;
}

export async function findUserByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return rowOf<UserRow>(db('users').first('*').whereRaw('lower(email) = lower(?)', [email]));
}

export async function findUserById(db: Knex, id: number): Promise<UserRow | undefined> {
  return rowOf<UserRow>(db('users').first('*').where({ id }));
}

export async function updateUserRole(db: Knex, id: number, role: UserRow['role']): Promise<UserRow | undefined> {
  const [row] = await rowsOf<UserRow>(db('users').update({ role }).where({ id }).returning('*'));
  return row;
}

/** Users whose email contains `emailPart` (any case), newest first: the dashboard's admin search. */
export async function searchUsers(
  db: Knex,
  emailPart: string,
  limit: number,
): Promise<Omit<UserRow, 'password_hash'>[]> {
  const q = db('users').select('id', 'email', 'role', 'created_at').orderBy('id', 'desc').limit(limit);
  // LIKE wildcards typed by the admin are matched literally.
  if (emailPart)
    q.whereRaw("lower(email) LIKE '%' || ? || '%' ESCAPE '\\'", [
      emailPart.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`),
    ]);
  return q;
}

/** Records that billing confirmed the user's sign-up grant. */
export async function markSignupCreditsGranted(db: Knex, id: number): Promise<void> {
  await db('users')
    .update({ signup_credits_granted_at: db.fn.now() })
    .where({ id })
    .whereNull('signup_credits_granted_at');
}

/** The emails of the users with these ids (the operator report names its users). */
export async function emailsByIds(db: Knex, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await rowsOf<{ id: number; email: string }>(db('users').select('id', 'email').whereIn('id', ids));
  return new Map(rows.map((r) => [Number(r.id), r.email]));
}
