import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

let dummyHash: Promise<string> | undefined;

/** A hash no password matches, made with the same parameters as real ones. */
function dummy(): Promise<string> {
  dummyHash ??= hash(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/** Computes the dummy hash ahead of the first sign-in, so that one is not slower than the rest. */
export function warmUpPasswords(): Promise<void> {
  return dummy().then(() => undefined);
}

/**
 * Whether the password matches the stored argon2 hash. An unknown email, or a user made by the
 * admin CLI without a password (hash null), is checked against a dummy hash and fails, taking as
 * long as a real check: the timing does not tell which emails exist.
 */
export async function passwordMatches(storedHash: string | null, password: string): Promise<boolean> {
  const target = storedHash ?? (await dummy());
  try {
    const ok = await verify(target, password);
    return ok && storedHash !== null;
  } catch {
    // A malformed stored hash is a failed sign-in, not a 500.
    return false;
  }
}

/** Spends the time of hashing a password (a refused sign-up takes as long as an accepted one). */
export async function burnHashTime(password: string): Promise<void> {
  await hash(password);
}
