import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  const lowest = () => 0;
  const highest = () => 0.999999;
  const middle = () => 0.5;

  it('stays between half and all of the exponential step, whatever the jitter draws', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const step = Math.min(60_000, 1000 * 2 ** (attempt - 1));
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(attempt, 1000, 60_000);
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
      }
      expect(backoffDelay(attempt, 1000, 60_000, lowest)).toBe(step / 2);
      expect(backoffDelay(attempt, 1000, 60_000, highest)).toBe(step);
    }
  });

  it('doubles the step with every attempt, starting from the minimum', () => {
    const delays = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, 1000, 60_000, highest));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000]);
    expect([1, 2, 3].map((n) => backoffDelay(n, 100, 60_000, middle))).toEqual([75, 150, 300]);
  });

  it('never exceeds the cap, however many attempts have failed', () => {
    for (const attempt of [7, 8, 20, 100, 1000, 10_000]) {
      const d = backoffDelay(attempt, 1000, 60_000, highest);
      expect(d).toBeLessThanOrEqual(60_000);
      expect(d).toBe(60_000);
      expect(backoffDelay(attempt, 1000, 60_000, lowest)).toBe(30_000);
    }
  });

  it('treats attempt 0 or below like the first attempt', () => {
    expect(backoffDelay(0, 1000, 60_000, highest)).toBe(1000);
    expect(backoffDelay(-3, 1000, 60_000, highest)).toBe(1000);
  });

  it('returns whole milliseconds', () => {
    for (let i = 0; i < 100; i++) expect(Number.isInteger(backoffDelay(3, 333, 60_000))).toBe(true);
  });

  it('spreads a fleet: different draws give different delays', () => {
    const draws = new Set(Array.from({ length: 50 }, () => backoffDelay(6, 1000, 60_000)));
    expect(draws.size).toBeGreaterThan(1);
  });
});
