import { outcomeOf, outcomeOfStatus } from './delivery-outcome';

describe('outcomeOfStatus', () => {
  it.each([200, 201, 202, 204, 299])('treats %i as delivered', (status) => {
    expect(outcomeOfStatus(status)).toBe('ack');
  });

  it.each([408, 429, 500, 502, 503, 504, 301, 302, 307, 308, 304, 100])('retries %i', (status) => {
    expect(outcomeOfStatus(status)).toBe('retry');
  });

  it.each([400, 401, 403, 404, 405, 410, 413, 422, 499])('does not retry %i', (status) => {
    expect(outcomeOfStatus(status)).toBe('ack');
  });
});

describe('outcomeOf', () => {
  it('retries a network failure or a timeout', () => {
    expect(outcomeOf({ kind: 'failure', refused: false, error: 'timeout' })).toBe('retry');
    expect(outcomeOf({ kind: 'failure', refused: false, error: 'connection refused' })).toBe('retry');
  });

  it('does not retry a URL the SSRF guard refused', () => {
    expect(outcomeOf({ kind: 'failure', refused: true, error: 'refused: private address' })).toBe('ack');
  });
});
