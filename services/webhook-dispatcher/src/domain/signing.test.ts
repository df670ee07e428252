import Stripe from 'stripe';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateSigningSecret, isStandardSecret } from './signing';
import { webhookHeaders } from './webhook-request';

// The receivers' own libraries, not our code, decide whether a delivery verifies.
const stripe = new Stripe('sk_test_unused');
const rawBody = JSON.stringify({ job_id: 'job_1', status: 'completed' });
const now = Math.floor(Date.now() / 1000);

function stripeVerifies(secret: string, headers: Record<string, string>): boolean {
  try {
    stripe.webhooks.constructEvent(rawBody, headers['X-Service-Signature'], secret);
    return true;
  } catch {
    return false;
  }
}

function standardVerifies(secret: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(rawBody, headers);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false;
    throw err;
  }
}

const headersFor = (secrets: string[], scheme: 'stripe' | 'standard') =>
  webhookHeaders({ event: 'job.completed', eventId: 'evt_1', attempt: 1, timestamp: now, secrets, scheme, rawBody });

describe('the stripe scheme (the default)', () => {
  it("verifies with stripe's constructEvent under the endpoint's secret only", () => {
    const secret = generateSigningSecret();
    const headers = headersFor([secret], 'stripe');
    expect(stripeVerifies(secret, headers)).toBe(true);
    expect(stripeVerifies(generateSigningSecret(), headers)).toBe(false);
    expect(headers['X-Service-Timestamp']).toBe(String(now));
  });

  it('during a rotation carries t=..,v1=<new>,v1=<old>, and verifies under either secret', () => {
    const [next, previous] = [generateSigningSecret(), generateSigningSecret()];
    const headers = headersFor([next, previous], 'stripe');
    expect(headers['X-Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripeVerifies(next, headers)).toBe(true);
    expect(stripeVerifies(previous, headers)).toBe(true);
    expect(stripeVerifies(generateSigningSecret(), headers)).toBe(false);
  });
});

describe('the standard scheme', () => {
  it("sends webhook-id, webhook-timestamp and a signature standardwebhooks' verify accepts", () => {
    const secret = generateSigningSecret('standard');
    expect(isStandardSecret(secret)).toBe(true);
    const headers = headersFor([secret], 'standard');
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(headers['X-Service-Signature']).toBeUndefined();
    expect(standardVerifies(secret, headers)).toBe(true);
    expect(standardVerifies(generateSigningSecret('standard'), headers)).toBe(false);
  });

  it('during a rotation carries two space-separated v1 entries, verified under either secret', () => {
    const [next, previous] = [generateSigningSecret('standard'), generateSigningSecret('standard')];
    const headers = headersFor([next, previous], 'standard');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(standardVerifies(next, headers)).toBe(true);
    expect(standardVerifies(previous, headers)).toBe(true);
    expect(standardVerifies(generateSigningSecret('standard'), headers)).toBe(false);
  });
});

describe('isStandardSecret', () => {
  it('refuses a base64url secret the Standard Webhooks libraries cannot decode', () => {
    expect(isStandardSecret('whsec_ab-_' + 'A'.repeat(40))).toBe(false);
    expect(isStandardSecret('whsec_' + Buffer.alloc(16).toString('base64'))).toBe(false);
  });
});
