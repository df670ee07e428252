import type { Bus } from '@mf/bus';
import type { Knex } from '@mf/db';
import { markSignupCreditsGranted, type UserRow } from '../repositories/users.repository';
import { grantCredits } from './users.usecase';

/** The ledger reference of a user's sign-up grant: one per account, so any retry is a no-op in billing. */
export const signupReference = (userId: number): string => `signup:${userId}`;
export const SIGNUP_GRANT_DESCRIPTION = 'sign-up credits';

/** Whether the user was promised sign-up credits that billing has not confirmed yet. */
export function owesSignupCredits(user: Pick<UserRow, 'signup_credits' | 'signup_credits_granted_at'>): boolean {
  return user.signup_credits > 0 && user.signup_credits_granted_at === null;
}

/**
 * Grants the credits promised at sign-up through billing's ledger (reference `signup:<user id>`)
 * and records the confirmation. Safe to call any number of times: billing grants a reference once.
 * Returns false when billing did not confirm (the caller goes on; the next call tries again).
 */
export async function settleSignupCredits(
  db: Knex,
  bus: Bus,
  user: Pick<UserRow, 'id' | 'signup_credits' | 'signup_credits_granted_at'>,
  onFailure: (err: unknown) => void = () => undefined,
): Promise<boolean> {
  if (!owesSignupCredits(user)) return true;
  try {
    await grantCredits(bus, user.id, user.signup_credits, signupReference(user.id), SIGNUP_GRANT_DESCRIPTION);
  } catch (err) {
    onFailure(err);
    return false;
  }
  await markSignupCreditsGranted(db, user.id);
  return true;
}
