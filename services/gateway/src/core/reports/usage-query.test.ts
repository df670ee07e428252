import { validateUsageQuery } from './usage-query';

describe('the usage query', () => {
  const now = new Date('2026-03-15T12:00:00Z');
  const check = (query: Record<string, unknown>) => validateUsageQuery(query, now);

  it('defaults to the current calendar month (UTC) by day', () => {
    expect(check({})).toEqual({
      ok: true,
      value: { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z', group_by: ['day'] },
    });
  });

  it('takes dates as midnight UTC or timestamps, and groupings comma-separated or repeated, in canonical order', () => {
    expect(check({ from: '2026-01-01', to: '2026-02-01T06:30:00+02:00', group_by: 'key,model' })).toEqual({
      ok: true,
      value: { from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T04:30:00.000Z', group_by: ['model', 'key'] },
    });
    expect(check({ group_by: ['key', 'day'], format: 'csv' })).toMatchObject({
      ok: true,
      value: { group_by: ['day', 'key'], format: 'csv' },
    });
  });

  it.each([
    [{ from: 'yesterday' }, 'from must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'],
    [{ to: '2026-13-01' }, 'to must be an ISO 8601 date (YYYY-MM-DD, midnight UTC) or timestamp'],
    [{ from: '2026-03-02', to: '2026-03-02' }, 'to must be after from'],
    [{ from: '2025-01-01', to: '2026-01-03' }, 'to must be at most 366 days after from'],
    [{ group_by: 'week' }, 'group_by must be one or more of day, model, key (comma-separated or repeated)'],
    [{ group_by: ['day', 'user'] }, 'group_by must be one or more of day, model, key (comma-separated or repeated)'],
    [{ format: 'xlsx' }, 'format must be json or csv'],
  ])('refuses %j naming the parameter', (query, error) => {
    expect(check(query)).toEqual({ ok: false, error });
  });

  it('allows exactly 366 days and names an unknown parameter', () => {
    expect(check({ from: '2024-01-01', to: '2025-01-01' }).ok).toBe(true);
    expect(check({ form: '2026-01-01' })).toEqual({
      ok: false,
      error: 'unknown query parameter: form (accepted: from, to, group_by, format)',
    });
  });
});
