import { hash } from '@node-rs/argon2';
import { passwordMatches } from './passwords';

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

  it('takes about as long without a stored hash as with one (no hint that an email exists)', async () => {
    const stored = await hash('a long enough password');
    await passwordMatches(null, 'warm up');
    const time = async (fn: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await fn();
      return Number(process.hrtime.bigint() - start) / 5e6;
    };
    const known = await time(() => passwordMatches(stored, 'wrong password'));
    const unknown = await time(() => passwordMatches(null, 'wrong password'));
    // Both run one argon2 verification with the same parameters; a skipped check would be ~0 ms.
    expect(unknown).toBeGreaterThan(known * 0.3);
    expect(unknown).toBeLessThan(known * 3);
  });
});
