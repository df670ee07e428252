import { hash } from '@node-rs/argon2';
import { passwordMatches } from './passwords';

// Records every verification (the real one still runs): which hash a check was made against; and
// every hash made.
const verified: string[] = [];
const hashed: string[] = [];
jest.mock('@node-rs/argon2', () => {
  const real = jest.requireActual<typeof import('@node-rs/argon2')>('@node-rs/argon2');
  return {
    ...real,
    verify: (stored: string, password: string) => (verified.push(stored), real.verify(stored, password)),
    hash: (password: string) => (hashed.push(password), real.hash(password)),
  };
});

/** The cost parameters of an argon2 PHC string ($argon2id$v=19$m=...,t=...,p=...$salt$hash). */
const costOf = (phc: string) => phc.split('$').slice(1, 4).join('$');

describe('passwordMatches', () => {
  it('accepts the password of the stored hash and nothing else', async () => {
    const stored = await hash('a long enough password');
    expect(await passwordMatches(stored, 'a long enough password')).toBe(true);
    expect(await passwordMatches(stored, 'a long enough passwore')).toBe(false);
  });

  it('refuses every password of a user without one (admin CLI users), whatever is typed', async () => {
    expect(await passwordMatches(null, '')).toBe(false);
    expect(await passwordMatches(null, 'anything at all')).toBe(false);
  });

  it('answers a malformed stored hash with a refusal, not an error', async () => {
    await expect(passwordMatches('not-a-hash', 'x')).resolves.toBe(false);
  });

  it('runs one argon2 verification with the real cost parameters without a stored hash (no timing hint that an email exists)', async () => {
    const stored = await hash('a long enough password');
    verified.length = 0;
    await passwordMatches(stored, 'wrong password');
    await passwordMatches(null, 'wrong password');
    // Same work either way: one verification each, against hashes of the same algorithm and cost.
    expect(verified).toHaveLength(2);
    expect(costOf(verified[1])).toBe(costOf(verified[0]));
    expect(verified[1]).not.toBe(verified[0]);
  });

  it('makes its dummy hash on the first check even for a known email, so the first check costs the same either way', async () => {
    const stored = await hash('a long enough password');
    let fresh: typeof import('./passwords') | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a copy without a dummy yet
      fresh = require('./passwords') as typeof import('./passwords');
    });
    hashed.length = 0;
    expect(await fresh!.passwordMatches(stored, 'a long enough password')).toBe(true);
    expect(hashed).toHaveLength(1);
    expect(hashed[0]).not.toBe('a long enough password');
  });
});
