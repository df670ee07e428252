import { DEFAULT_THROTTLE_RULES, LoginThrottle } from './login-throttle';

const rules = (overrides: Partial<typeof DEFAULT_THROTTLE_RULES>) => ({ ...DEFAULT_THROTTLE_RULES, ...overrides });

describe('LoginThrottle', () => {
  it('allows 5 sign-in attempts per email and IP in the window, then answers with the wait', async () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) expect(await throttle.signInAttempt('a@example.test', '10.0.0.1')).toBe(0);
    const wait = await throttle.signInAttempt('a@example.test', '10.0.0.1');
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(900);
  });

  it('counts an account per normalised email and per IP', async () => {
    const throttle = new LoginThrottle(undefined, rules({ perAccount: { points: 1, durationSec: 60 } }));
    expect(await throttle.signInAttempt(' A@Example.TEST ', '10.0.0.1')).toBe(0);
    expect(await throttle.signInAttempt('a@example.test', '10.0.0.1')).toBeGreaterThan(0);
    expect(await throttle.signInAttempt('a@example.test', '10.0.0.2')).toBe(0);
    expect(await throttle.signInAttempt('b@example.test', '10.0.0.1')).toBe(0);
  });

  it('starts an account afresh after a successful sign-in', async () => {
    const throttle = new LoginThrottle(undefined, rules({ perAccount: { points: 2, durationSec: 60 } }));
    await throttle.signInAttempt('a@example.test', '10.0.0.1');
    await throttle.signInAttempt('a@example.test', '10.0.0.1');
    await throttle.signInSucceeded('a@example.test', '10.0.0.1');
    expect(await throttle.signInAttempt('a@example.test', '10.0.0.1')).toBe(0);
    expect(await throttle.signInAttempt('a@example.test', '10.0.0.1')).toBe(0);
    expect(await throttle.signInAttempt('a@example.test', '10.0.0.1')).toBeGreaterThan(0);
  });

  it('caps failed sign-ins per IP over many emails (password spraying), other IPs unaffected', async () => {
    const throttle = new LoginThrottle(undefined, rules({ failuresPerIp: { points: 30, durationSec: 900 } }));
    for (let i = 0; i < 30; i++) expect(await throttle.signInAttempt(`user${i}@example.test`, '10.0.0.9')).toBe(0);
    expect(await throttle.signInAttempt('fresh@example.test', '10.0.0.9')).toBeGreaterThan(0);
    expect(await throttle.signInAttempt('fresh@example.test', '10.0.0.10')).toBe(0);
  });

  it('counts only failures per IP: successful sign-ins give their point back', async () => {
    const throttle = new LoginThrottle(undefined, rules({ failuresPerIp: { points: 3, durationSec: 900 } }));
    for (let i = 0; i < 10; i++) {
      expect(await throttle.signInAttempt(`ok${i}@example.test`, '10.0.0.3')).toBe(0);
      await throttle.signInSucceeded(`ok${i}@example.test`, '10.0.0.3');
    }
    for (let i = 0; i < 3; i++) expect(await throttle.signInAttempt(`bad${i}@example.test`, '10.0.0.3')).toBe(0);
    expect(await throttle.signInAttempt('bad3@example.test', '10.0.0.3')).toBeGreaterThan(0);
  });

  it('allows 10 sign-ups per IP per hour, then answers with the wait', async () => {
    const throttle = new LoginThrottle();
    const results = await Promise.all(Array.from({ length: 12 }, () => throttle.signUpAttempt('10.0.0.4')));
    expect(results.filter((w) => w === 0)).toHaveLength(10);
    for (const w of results.filter((x) => x > 0)) expect(w).toBeLessThanOrEqual(3600);
    expect(await throttle.signUpAttempt('10.0.0.5')).toBe(0);
  });

  it('lets exactly the allowed number of parallel guesses through', async () => {
    const throttle = new LoginThrottle();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => throttle.signInAttempt('a@example.test', '10.0.0.1')),
    );
    expect(results.filter((w) => w === 0)).toHaveLength(5);
  });
});
