import { AppError } from './app-error';
import { fromWire, toWire, type WireError } from './wire';

describe('an AppError on the RPC wire', () => {
  it('travels as kind, body and details, and comes back the same', () => {
    const sent = new AppError(
      'rate_limited',
      { error: 'Too many concurrent jobs for this API key', retry_after: 5 },
      { retryAfterSec: 5 },
    );
    const received = fromWire(JSON.parse(JSON.stringify(toWire(sent))) as WireError);
    expect(received).toBeInstanceOf(AppError);
    expect([received.kind, received.body, received.details]).toEqual([sent.kind, sent.body, sent.details]);
  });

  it('also writes the status and headers a peer of the previous version reads', () => {
    expect(toWire(AppError.unavailable())).toEqual({
      kind: 'unavailable',
      status: 503,
      body: { error: 'Service temporarily unavailable, retry shortly' },
      details: { retryAfterSec: 2 },
      headers: { 'Retry-After': '2' },
    });
    expect(toWire(AppError.insufficientCredits(50, 10))).toMatchObject({ status: 402, headers: {} });
  });

  it('reads an error of a peer of the previous version (status and headers, no kind) by its status', () => {
    const older = (w: WireError) => fromWire(JSON.parse(JSON.stringify(w)) as WireError);
    const limited = older({
      status: 429,
      body: { error: 'Too many concurrent jobs for this API key', retry_after: 5 },
      headers: { 'Retry-After': '5' },
    });
    expect([limited.kind, limited.details]).toEqual(['rate_limited', { retryAfterSec: 5 }]);
    const spent = older({ status: 402, body: { error: 'Insufficient credits', credits_required: 5 } });
    expect([spent.kind, spent.body, spent.details]).toEqual([
      'payment_required',
      { error: 'Insufficient credits', credits_required: 5 },
      {},
    ]);
    expect(older({ status: 504, body: { error: 'export_timeout', message: 'm' }, headers: {} }).kind).toBe('timed_out');
  });

  it('reads a kind it does not know (a newer peer) by the status written beside it', () => {
    const newer = { kind: 'teapot', status: 418, body: { error: 'x' } } as unknown as WireError;
    expect(fromWire(newer).kind).toBe('invalid');
  });
});
