import { createHmac } from 'node:crypto';
import { generateSigningSecret } from './signing';
import { webhookHeaders } from './webhook-request';

// Any raw body: the signature covers its bytes as sent (the body's own shape is webhook-body.test's).
const rawBody = JSON.stringify({ job_id: 'j1', status: 'cancelled' });

describe('webhookHeaders', () => {
  it('signs "<timestamp>.<raw body>" with the secret and carries the event id and attempt', () => {
    const secret = generateSigningSecret();
    const headers = webhookHeaders({
      event: 'job.cancelled',
      eventId: 'evt_0000000000000001',
      attempt: 3,
      timestamp: 1_700_000_000,
      secrets: [secret],
      rawBody,
    });
    const mac = createHmac('sha256', secret).update(`1700000000.${rawBody}`).digest('hex');
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'Mediaforge-Webhooks/1.0',
      'X-Service-Event': 'job.cancelled',
      'X-Service-Timestamp': '1700000000',
      'X-Service-Signature': `t=1700000000,v1=${mac}`,
      'X-Service-Event-Id': 'evt_0000000000000001',
      'X-Service-Delivery-Attempt': '3',
    });
  });
});

describe('generateSigningSecret', () => {
  it('is whsec_ and 32 random bytes in base64url, new each time', () => {
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(a);
  });
});
