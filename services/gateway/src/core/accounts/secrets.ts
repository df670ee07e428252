import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url (43 characters): session tokens and CSRF tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** What the database keeps of a session token. 256 random bits need no slow hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two strings of any lengths (their digests are compared). */
export function sameSecret(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
