import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  it('allows 5 attempts of one key in the window and refuses the 6th with the seconds left', async () => {
    const throttle = new LoginThrottle({ maxFailures: 5, windowSec: 900 });
    const key = LoginThrottle.key('a@example.test', '10.0.0.1');
    for (let i = 0; i < 5; i++) expect(await throttle.attempt(key)).toBe(0);
    const wait = await throttle.attempt(key);
    expect(wait).toBeGreaterThan(890);
    expect(wait).toBeLessThanOrEqual(900);
  });

  it('counts the same email in any case and spacing as one key, and each IP apart', async () => {
    expect(LoginThrottle.key(' A@Example.TEST ', '10.0.0.1')).toBe(LoginThrottle.key('a@example.test', '10.0.0.1'));
    const throttle = new LoginThrottle({ maxFailures: 1, windowSec: 60 });
    expect(await throttle.attempt(LoginThrottle.key('a@example.test', '10.0.0.1'))).toBe(0);
    expect(await throttle.attempt(LoginThrottle.key('A@example.test', '10.0.0.1'))).toBeGreaterThan(0);
    expect(await throttle.attempt(LoginThrottle.key('a@example.test', '10.0.0.2'))).toBe(0);
    expect(await throttle.attempt(LoginThrottle.key('b@example.test', '10.0.0.1'))).toBe(0);
  });

  it('starts the count again after a success', async () => {
    const throttle = new LoginThrottle({ maxFailures: 2, windowSec: 60 });
    const key = LoginThrottle.key('a@example.test', '10.0.0.1');
    await throttle.attempt(key);
    await throttle.attempt(key);
    await throttle.succeeded(key);
    expect(await throttle.attempt(key)).toBe(0);
    expect(await throttle.attempt(key)).toBe(0);
    expect(await throttle.attempt(key)).toBeGreaterThan(0);
  });

  it('counts parallel attempts exactly: 20 at once let 5 through', async () => {
    const throttle = new LoginThrottle({ maxFailures: 5, windowSec: 60 });
    const key = LoginThrottle.key('a@example.test', '10.0.0.1');
    const results = await Promise.all(Array.from({ length: 20 }, () => throttle.attempt(key)));
    expect(results.filter((r) => r === 0)).toHaveLength(5);
  });
});
