import { AppError } from '@mf/errors';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;

export const INVALID_KEY = (): AppError =>
  AppError.badRequest(`Idempotency-Key must be 1-${MAX_KEY_LENGTH} characters`);
export const KEY_REUSED = (): AppError =>
  new AppError('unprocessable', {
    error:
      'Idempotency-Key has already been used with a different request (endpoint or body); use a new key for a new request',
  });

/** The key of an Idempotency-Key header: null when absent; a 400 when empty or too long. */
export function idempotencyKeyOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (header.length < 1 || header.length > MAX_KEY_LENGTH) throw INVALID_KEY();
  return header;
}
