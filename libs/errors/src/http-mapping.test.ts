import { AppError, ERROR_KINDS, isCallerFault, type ErrorKind } from './app-error';
import { httpHeadersOf, httpResponseOf, httpStatusOf, kindOfHttpStatus } from './http-mapping';

describe('the HTTP edge of error kinds', () => {
  it('gives each kind its status, and reads each status back as that kind', () => {
    const table = Object.fromEntries(ERROR_KINDS.map((k) => [k, httpStatusOf(k)]));
    expect(table).toEqual({
      invalid: 400,
      unauthenticated: 401,
      payment_required: 402,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      too_large: 413,
      unsupported_media_type: 415,
      range_not_satisfiable: 416,
      unprocessable: 422,
      rate_limited: 429,
      internal: 500,
      upstream_failed: 502,
      unavailable: 503,
      timed_out: 504,
    });
    for (const kind of ERROR_KINDS) expect(kindOfHttpStatus(httpStatusOf(kind))).toBe(kind);
  });

  it('reads a status without a kind of its own as the general kind of its class', () => {
    expect([kindOfHttpStatus(418), kindOfHttpStatus(501), kindOfHttpStatus(200)]).toEqual([
      'invalid',
      'internal',
      'internal',
    ]);
  });

  it('calls exactly the 4xx kinds the caller’s fault', () => {
    for (const kind of ERROR_KINDS) {
      expect([kind, isCallerFault(new AppError(kind, { error: 'x' }))]).toEqual([kind, httpStatusOf(kind) < 500]);
    }
  });

  it('turns each detail into its header', () => {
    expect(httpHeadersOf({})).toEqual({});
    expect(httpHeadersOf({ retryAfterSec: 5 })).toEqual({ 'Retry-After': '5' });
    expect(httpHeadersOf({ allowedMethods: ['GET', 'HEAD', 'POST'] })).toEqual({ Allow: 'GET, HEAD, POST' });
    expect(httpHeadersOf({ resourceSize: 1234 })).toEqual({ 'Content-Range': 'bytes */1234' });
    expect(httpHeadersOf({ challenge: { scheme: 'Bearer', params: [['realm', 'api']] } })).toEqual({
      'WWW-Authenticate': 'Bearer realm="api"',
    });
    expect(
      httpHeadersOf({
        challenge: {
          scheme: 'Bearer',
          params: [
            ['resource_metadata', 'https://x/m'],
            ['error', 'invalid_token'],
          ],
        },
      }),
    ).toEqual({ 'WWW-Authenticate': 'Bearer resource_metadata="https://x/m", error="invalid_token"' });
  });

  it('answers the factories as the contract did', () => {
    const cases: Array<[AppError, number, Record<string, string>]> = [
      [AppError.badRequest('bad'), 400, {}],
      [AppError.notFound(), 404, {}],
      [AppError.conflict('taken'), 409, {}],
      [AppError.insufficientCredits(50, 10), 402, {}],
      [AppError.rateLimited('slow down', 7), 429, { 'Retry-After': '7' }],
      [AppError.unavailable(), 503, { 'Retry-After': '2' }],
      [AppError.internal(), 500, {}],
    ];
    for (const [err, status, headers] of cases) {
      expect(httpResponseOf(err)).toEqual({ status, headers, body: err.body });
    }
    expect(AppError.rateLimited('slow down', 7).body).toEqual({ error: 'slow down', retry_after: 7 });
    expect(AppError.insufficientCredits(50, 10).body).toEqual({
      error: 'Insufficient credits',
      credits_required: 50,
      credits_remaining: 10,
    });
  });

  it('keeps the kinds a closed set', () => {
    const kinds: readonly ErrorKind[] = ERROR_KINDS;
    expect(new Set(kinds).size).toBe(16);
  });
});
