import { randomUUID } from 'node:crypto';
import type { Bus } from '@mf/bus';
import { billingRpc } from '@mf/contracts';
import type { Knex } from '@mf/db';
import { AppError } from '@mf/errors';
import { argon2 } from '../accounts/passwords';
import { findUserByEmail, insertUser, updateUserRole, type UserRow } from '../repositories/users.repository';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export async function createUser(
  db: Knex,
  input: { email: string; password?: string; signupCredits?: number },
): Promise<UserRow> {
  const email = input.email.trim();
  if (!EMAIL.test(email)) throw AppError.badRequest('email must be a valid email address');
  if (input.password !== undefined && input.password.length < 8)
    throw AppError.badRequest('password must be at least 8 characters');
  if (await findUserByEmail(db, email)) throw AppError.conflict(`a user with email ${email} already exists`);
  const password_hash = input.password === undefined ? null : await argon2().hash(input.password);
  try {
    return await insertUser(db, { email, password_hash, signup_credits: input.signupCredits ?? 0 });
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw AppError.conflict(`a user with email ${email} already exists`);
    throw err;
  }
}

export async function requireUserByEmail(db: Knex, email: string): Promise<UserRow> {
  const user = await findUserByEmail(db, email.trim());
  if (!user) throw AppError.notFound(`no user with email ${email}`);
  return user;
}

/** Grants credits through billing; the reference makes a retried grant a no-op. */
export async function grantCredits(
  bus: Bus,
  userId: number,
  amount: number,
  reference = `grant:${randomUUID()}`,
  description?: string,
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount < 1) throw AppError.badRequest('amount must be a positive integer');
  const reply = await bus.rpc(billingRpc, 'grant', {
    user_id: userId,
    amount,
    reference,
    ...(description ? { description } : {}),
  });
  return reply.credits_remaining;
}

export const ROLES: readonly UserRow['role'][] = ['user', 'admin'];

/** Makes a user an admin of the dashboard, or a plain user again; takes effect on their next request. */
export async function setUserRole(db: Knex, email: string, role: string): Promise<UserRow> {
  if (!(ROLES as readonly string[]).includes(role))
    throw AppError.badRequest(`role must be one of: ${ROLES.join(', ')}`);
  const user = await requireUserByEmail(db, email);
  const updated = await updateUserRole(db, user.id, role as UserRow['role']);
  if (!updated) throw AppError.notFound(`no user with email ${email}`);
  return updated;
}
