import { CircuitBreaker, type CircuitState } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('opens after the configured failures in a row and skips the provider for the cool-down', () => {
    const b = new CircuitBreaker({ failures: 3, cooldownMs: 10_000 }, clock);
    b.failure();
    b.failure();
    expect(b.allows()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
    expect(b.allows()).toBe(false);
    expect(b.retryAt).toEqual(new Date(now + 10_000));
    now += 9_999;
    expect(b.allows()).toBe(false);
  });

  it('counts failures in a row only: a success in between starts the count again', () => {
    const b = new CircuitBreaker({ failures: 3, cooldownMs: 10_000 }, clock);
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.state).toBe('closed');
  });

  it('is half-open after the cool-down: a success closes it, a single failure opens it again', () => {
    const changes: CircuitState[] = [];
    const b = new CircuitBreaker({ failures: 2, cooldownMs: 1000 }, clock, (s) => changes.push(s));
    b.failure();
    b.failure();
    now += 1000;
    expect(b.state).toBe('half-open');
    expect(b.allows()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
    now += 1000;
    b.success();
    expect(b.state).toBe('closed');
    expect(changes).toEqual(['open', 'open', 'closed']);
  });

  it('never opens with failures: 0 (the one-provider shorthand)', () => {
    const b = new CircuitBreaker({ failures: 0, cooldownMs: 1000 }, clock);
    for (let i = 0; i < 100; i++) b.failure();
    expect(b.allows()).toBe(true);
  });
});
