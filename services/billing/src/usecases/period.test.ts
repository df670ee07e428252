import { periodBounds } from './period';

function bounds(iso: string): { start: string; end: string } {
  const { start, end } = periodBounds(new Date(iso));
  return { start: start.toISOString(), end: end.toISOString() };
}

describe('periodBounds (calendar month in UTC)', () => {
  it('spans the whole month for an instant in the middle of it', () => {
    expect(bounds('2025-06-15T13:45:12.345Z')).toEqual({
      start: '2025-06-01T00:00:00.000Z',
      end: '2025-07-01T00:00:00.000Z',
    });
  });

  it('starts the period at the first instant of the month', () => {
    expect(bounds('2025-03-01T00:00:00.000Z')).toEqual({
      start: '2025-03-01T00:00:00.000Z',
      end: '2025-04-01T00:00:00.000Z',
    });
  });

  it('keeps the last millisecond of a month in that month', () => {
    expect(bounds('2025-03-31T23:59:59.999Z')).toEqual({
      start: '2025-03-01T00:00:00.000Z',
      end: '2025-04-01T00:00:00.000Z',
    });
  });

  it('ends a period exactly where the next one starts', () => {
    const last = periodBounds(new Date('2025-04-30T23:59:59.999Z'));
    const next = periodBounds(new Date('2025-05-01T00:00:00.000Z'));
    expect(last.end.getTime()).toBe(next.start.getTime());
  });

  it('rolls December over into January of the next year', () => {
    expect(bounds('2024-12-31T23:59:59.999Z')).toEqual({
      start: '2024-12-01T00:00:00.000Z',
      end: '2025-01-01T00:00:00.000Z',
    });
    expect(bounds('2025-01-01T00:00:00.000Z')).toEqual({
      start: '2025-01-01T00:00:00.000Z',
      end: '2025-02-01T00:00:00.000Z',
    });
  });

  it('includes 29 February in a leap year', () => {
    expect(bounds('2024-02-29T12:00:00.000Z')).toEqual({
      start: '2024-02-01T00:00:00.000Z',
      end: '2024-03-01T00:00:00.000Z',
    });
    const { start, end } = periodBounds(new Date('2024-02-10T00:00:00Z'));
    expect((end.getTime() - start.getTime()) / 86_400_000).toBe(29);
  });

  it('has 28 days in February of a common year', () => {
    const { start, end } = periodBounds(new Date('2025-02-28T23:59:59.999Z'));
    expect(start.toISOString()).toBe('2025-02-01T00:00:00.000Z');
    expect(end.toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect((end.getTime() - start.getTime()) / 86_400_000).toBe(28);
  });

  it('uses the UTC month even when the local date would differ', () => {
    // 2025-07-01T02:00 at UTC+05:00 is still 30 June in UTC.
    expect(bounds('2025-07-01T02:00:00+05:00')).toEqual({
      start: '2025-06-01T00:00:00.000Z',
      end: '2025-07-01T00:00:00.000Z',
    });
    // 2025-06-30T22:00 at UTC-05:00 is already 1 July in UTC.
    expect(bounds('2025-06-30T22:00:00-05:00')).toEqual({
      start: '2025-07-01T00:00:00.000Z',
      end: '2025-08-01T00:00:00.000Z',
    });
  });

  it('does not modify the date it is given', () => {
    const now = new Date('2025-06-15T13:45:12.345Z');
    periodBounds(now);
    expect(now.toISOString()).toBe('2025-06-15T13:45:12.345Z');
  });
});
