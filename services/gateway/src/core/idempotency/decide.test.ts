import { decide, releasesKey } from './decide';
import type { IdempotencyRecord } from './record';

const T0 = new Date('2030-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

const record = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  userId: 1,
  key: 'k',
  fingerprint: 'fp',
  state: 'in_progress',
  responseStatus: null,
  responseBody: null,
  lockedUntil: at(90_000),
  owner: 'o1',
  createdAt: T0,
  expiresAt: at(24 * 3_600_000),
  ...over,
});

describe('decide', () => {
  it('replays a finished record of the same request', () => {
    expect(decide(record({ state: 'done', responseStatus: 202, responseBody: {} }), 'fp', at(1000))).toBe('replay');
  });

  it('waits for a record still running within its lease', () => {
    expect(decide(record(), 'fp', at(89_999))).toBe('wait');
  });

  it('takes over a record still running once its lease has passed', () => {
    expect(decide(record(), 'fp', at(90_000))).toBe('take-over');
  });

  it('refuses another request under the same key, running or finished', () => {
    expect(decide(record(), 'other', at(1000))).toBe('mismatch');
    expect(decide(record({ state: 'done', responseStatus: 202 }), 'other', at(1000))).toBe('mismatch');
  });

  it('treats an expired record as absent, whatever its request or state', () => {
    const expires = 24 * 3_600_000;
    expect(decide(record({ state: 'done', responseStatus: 202 }), 'fp', at(expires))).toBe('absent');
    expect(decide(record(), 'other', at(expires + 1))).toBe('absent');
  });
});

describe('releasesKey', () => {
  it('frees the key after a request refused before doing anything: 400, 401, 403, 429', () => {
    for (const status of [400, 401, 403, 429]) expect(releasesKey(status)).toBe(true);
  });

  it('keeps every other answer, errors and 5xx included', () => {
    for (const status of [200, 202, 402, 404, 409, 413, 422, 500, 502, 503, 504])
      expect(releasesKey(status)).toBe(false);
  });

  it('frees the key after a 503 of a route that forwarded the key to a service that deduplicates', () => {
    expect(releasesKey(503, true)).toBe(true);
    for (const status of [202, 402, 500, 502]) expect(releasesKey(status, true)).toBe(false);
  });
});
