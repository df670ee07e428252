/**
 * The billing period is the calendar month in UTC: [first day 00:00, first day of next month).
 * Counters reset at the start of each month; the balance itself carries over.
 */
export function periodBounds(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
