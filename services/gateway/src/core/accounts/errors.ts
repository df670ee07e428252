import { AppError } from '@mf/errors';

/** The dashboard's fixed error bodies (docs/dashboard-api.md). */
export const NOT_SIGNED_IN = (): AppError => new AppError('unauthenticated', { error: 'Not signed in' });
export const ADMINS_ONLY = (): AppError => new AppError('forbidden', { error: 'Admins only' });
export const CSRF_REFUSED = (): AppError => new AppError('forbidden', { error: 'CSRF token missing or invalid' });
/** The same words whether or not the email exists. */
export const INVALID_CREDENTIALS = (): AppError =>
  new AppError('unauthenticated', { error: 'Invalid email or password' });
/** Every sign-up refusal, so the answer never says whether an email is registered. */
export const SIGNUP_REFUSED = (): AppError => AppError.badRequest('Could not create an account with these details');

export function tooManySignIns(retryAfterSec: number): AppError {
  return AppError.rateLimited(`Too many sign-in attempts. Try again in ${retryAfterSec} s.`, retryAfterSec);
}

export function tooManySignUps(retryAfterSec: number): AppError {
  return AppError.rateLimited(`Too many sign-ups from this address. Try again in ${retryAfterSec} s.`, retryAfterSec);
}
