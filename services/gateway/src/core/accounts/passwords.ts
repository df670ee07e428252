import { randomBytes } from 'node:crypto';

/**
 * The argon2 addon, loaded on the first password check or hash: its native library and worker
 * threads are about 4 MiB of an idle gateway's memory (the memory bench, bench/README.md).
 */
export function argon2(): typeof import('@node-rs/argon2') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
  return require('@node-rs/argon2') as typeof import('@node-rs/argon2');
}

let dummyHash: Promise<string> | undefined;

/** A hash no password matches, made with the same parameters as real ones. */
function dummy(): Promise<string> {
  dummyHash ??= argon2().hash(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/**
 * Whether the password matches the stored argon2 hash. An unknown email, or a user made by the
 * admin CLI without a password (hash null), is checked against a dummy hash and fails, taking as
 * long as a real check: the timing does not tell which emails exist. The dummy is made on the
 * first check whatever the email, so the first check is as slow for a known email as for an
 * unknown one.
 */
export async function passwordMatches(storedHash: string | null, password: string): Promise<boolean> {
  const fallback = await dummy();
  const target = storedHash ?? fallback;
  try {
    const ok = await argon2().verify(target, password);
    return ok && storedHash !== null;
  } catch {
    // A malformed stored hash is a failed sign-in, not a 500.
    return false;
  }
}

/** Spends the time of hashing a password (a refused sign-up takes as long as an accepted one). */
export async function burnHashTime(password: string): Promise<void> {
  await argon2().hash(password);
}
