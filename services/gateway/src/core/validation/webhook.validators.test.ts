import { validateRecoverBody } from './webhook.validators';

describe('the body of POST /api/v1/webhook/recover', () => {
  it('takes an ISO 8601 timestamp as it was sent', () => {
    expect(validateRecoverBody({ since: '2026-01-02T03:04:05Z' })).toEqual({
      ok: true,
      value: { since: '2026-01-02T03:04:05Z' },
    });
    expect(validateRecoverBody({ since: '0001-01-01T00:00:00Z' })).toMatchObject({ ok: true });
    expect(validateRecoverBody({ since: '9999-12-31T23:59:59.999Z' })).toMatchObject({ ok: true });
  });

  it('says since is required when it is missing', () => {
    expect(validateRecoverBody({})).toEqual({ ok: false, error: 'since is required' });
  });

  it.each([['yesterday'], [''], [42], [null]])('refuses %p as not a timestamp', (since) => {
    expect(validateRecoverBody({ since })).toEqual({ ok: false, error: 'since must be an ISO 8601 timestamp' });
  });

  // JavaScript reads these (years up to ±275760); the database holds none of them.
  it.each([
    ['-004714-01-01T00:00:00Z'],
    ['+275760-09-13T00:00:00Z'],
    ['+010000-01-01T00:00:00Z'],
    ['0000-12-31T23:59:59Z'],
  ])('refuses %s, a date no store holds, naming the range', (since) => {
    expect(validateRecoverBody({ since })).toEqual({
      ok: false,
      error: 'since must be between 0001-01-01 and 9999-12-31',
    });
  });
});
