import { checkCallbackToken, signCallbackToken } from './callback-token';

const SECRET = 'a-secret-of-sixteen-plus';
const now = new Date('2026-01-01T00:00:00Z');
const inAnHour = new Date(now.getTime() + 3_600_000);
const grant = { jobId: 'job_abc', attempt: 2, expiresAt: inAnHour };

describe('provider callback tokens', () => {
  const token = signCallbackToken(SECRET, grant);

  it('accepts the token for its job and attempt until it expires', () => {
    expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token }, now)).toBe(true);
    expect(
      checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token }, new Date(inAnHour.getTime() - 1000)),
    ).toBe(true);
  });

  it('refuses it once the job it was made for has run out of time', () => {
    expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token }, inAnHour)).toBe(false);
  });

  it('refuses it for another attempt, another job, or without the attempt', () => {
    expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 1, token }, now)).toBe(false);
    expect(checkCallbackToken(SECRET, { jobId: 'job_abd', attempt: 2, token }, now)).toBe(false);
    expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: undefined, token }, now)).toBe(false);
  });

  it('refuses a token whose expiry was moved, one signed with another secret, and any other shape', () => {
    const [, exp, sig] = /^(\d+)-(.+)$/.exec(token)!;
    expect(
      checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token: `${Number(exp) + 3600}-${sig}` }, now),
    ).toBe(false);
    const other = signCallbackToken('another-secret-16chars', grant);
    expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token: other }, now)).toBe(false);
    for (const bad of ['', 't', sig, `${exp}-`, `${exp}.${sig}`, `${exp}-${sig}x`]) {
      expect(checkCallbackToken(SECRET, { jobId: 'job_abc', attempt: 2, token: bad }, now)).toBe(false);
    }
  });
});
