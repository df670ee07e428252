import { createHmac } from 'node:crypto';
import { WebhookVerificationError, signWebhook, verifyWebhook } from './index';

const secret = 'whsec_test_secret';
const body = JSON.stringify({
  job_id: 'job_1',
  status: 'completed',
  model: 'fal-ai/imagegen-2',
  type: 'image',
  credits_consumed: 50,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: '2026-01-01T00:00:05.000Z',
  result: { images: ['https://x.test/a.png'] },
  error: null,
});
const t = 1_767_225_600;
const now = t * 1000 + 2000;
const sig = (ts = t, b = body, s = secret) =>
  `t=${ts},v1=${createHmac('sha256', s).update(`${ts}.${b}`).digest('hex')}`;
const headers = (signature: string, ts = t) => ({
  'content-type': 'application/json',
  'x-service-event': 'job.completed',
  'x-service-timestamp': String(ts),
  'x-service-signature': signature,
  'x-service-event-id': '0b6f3c1e-6a8d-4f7e-9c0d-2f4b1a7e5c93',
  'x-service-delivery-attempt': '1',
});
const fails = (f: () => unknown, msg: RegExp) => {
  expect(f).toThrow(WebhookVerificationError);
  expect(f).toThrow(msg);
};

describe('verifyWebhook', () => {
  it('accepts a correct signature and returns the event', () => {
    const ev = verifyWebhook({ payload: body, headers: headers(sig()), secret, now });
    expect(ev).toEqual({
      type: 'job.completed',
      id: '0b6f3c1e-6a8d-4f7e-9c0d-2f4b1a7e5c93',
      timestamp: t,
      attempt: 1,
      data: JSON.parse(body),
    });
  });

  it('accepts a Buffer payload, fetch Headers and mixed-case names; signWebhook matches', () => {
    const h = new Headers({ 'X-Service-Signature': signWebhook(secret, body, t), 'X-Service-Event': 'job.completed' });
    expect(verifyWebhook({ payload: Buffer.from(body), headers: h, secret, now }).data.job_id).toBe('job_1');
    expect(
      verifyWebhook({ payload: body, headers: { 'X-Service-Signature': sig() }, secret, now: new Date(now) }).type,
    ).toBe('job.completed');
  });

  it('refuses a tampered body', () => {
    fails(
      () => verifyWebhook({ payload: body.replace('completed', 'failed'), headers: headers(sig()), secret, now }),
      /signature mismatch/,
    );
  });

  it('refuses a wrong secret', () => {
    fails(
      () => verifyWebhook({ payload: body, headers: headers(sig()), secret: 'whsec_other', now }),
      /signature mismatch/,
    );
  });

  it('refuses a stale timestamp (> 300 s), even correctly signed', () => {
    const old = t - 301;
    fails(() => verifyWebhook({ payload: body, headers: headers(sig(old), old), secret, now: t * 1000 }), /too old/);
    expect(() =>
      verifyWebhook({ payload: body, headers: headers(sig(t - 300), t - 300), secret, now: t * 1000 }),
    ).not.toThrow();
    expect(() =>
      verifyWebhook({ payload: body, headers: headers(sig(old), old), secret, now: t * 1000, toleranceSec: 600 }),
    ).not.toThrow();
  });

  it('refuses a future timestamp beyond the tolerance', () => {
    const future = t + 400;
    fails(
      () => verifyWebhook({ payload: body, headers: headers(sig(future), future), secret, now: t * 1000 }),
      /future/,
    );
  });

  it('refuses a missing or malformed header', () => {
    fails(() => verifyWebhook({ payload: body, headers: {}, secret, now }), /missing X-Service-Signature/);
    for (const bad of [
      'garbage',
      `t=${t}`,
      `v1=${'a'.repeat(64)}`,
      `t=abc,v1=${'a'.repeat(64)}`,
      `t=${t},v1=xyz`,
      `t=${t},v1=${'a'.repeat(63)}`,
      `t=${t},t=${t},v1=${'a'.repeat(64)}`,
    ]) {
      fails(() => verifyWebhook({ payload: body, headers: headers(bad), secret, now }), /malformed/);
    }
  });

  it('refuses an X-Service-Timestamp that disagrees with the signature', () => {
    fails(() => verifyWebhook({ payload: body, headers: headers(sig(), t + 1), secret, now }), /does not match/);
  });

  it('refuses a correctly signed body that is not a JSON object', () => {
    fails(() => verifyWebhook({ payload: '[1]', headers: headers(sig(t, '[1]')), secret, now }), /not a JSON object/);
  });
});
