import type { Knex } from '@mf/db';
import { isAppError } from '@mf/errors';
import { findUserByEmail, type UserRow } from '../repositories/users.repository';
import { createUser } from './users.usecase';
import { SIGNUP_REFUSED } from '../accounts/errors';
import { burnHashTime, passwordMatches } from '../accounts/passwords';

/** The dashboard asks more of a password than the admin CLI does (spec: 10 characters). */
export const MIN_PASSWORD_LENGTH = 10;

export interface UserView {
  id: number;
  email: string;
  role: UserRow['role'];
}

export function userView(u: Pick<UserRow, 'id' | 'email' | 'role'>): UserView {
  return { id: u.id, email: u.email, role: u.role };
}

/**
 * A new account through the same createUser as the admin CLI, promised `signupCredits` (the
 * SIGNUP_CREDITS setting; granted by settleSignupCredits). Every refusal is the same 400, and
 * a taken email spends the hashing time an accepted sign-up would: neither the answer nor its
 * timing says whether the email is registered.
 */
export async function signUp(db: Knex, email: string, password: string, signupCredits = 0): Promise<UserRow> {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw SIGNUP_REFUSED();
  try {
    return await createUser(db, { email, password, signupCredits });
  } catch (err) {
    if (!isAppError(err) || (err.kind !== 'invalid' && err.kind !== 'conflict')) throw err;
    if (err.kind === 'conflict') await burnHashTime(password);
    throw SIGNUP_REFUSED();
  }
}

/** The user these credentials prove, or null (unknown email, no password set, wrong password). */
export async function checkCredentials(db: Knex, email: string, password: string): Promise<UserRow | null> {
  const user = await findUserByEmail(db, email.trim());
  const ok = await passwordMatches(user?.password_hash ?? null, password);
  return ok && user ? user : null;
}
