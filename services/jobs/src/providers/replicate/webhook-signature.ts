import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures, as Replicate sends them: `webhook-id`, `webhook-timestamp` (seconds)
 * and `webhook-signature` (space-separated `v1,<base64>` entries); the signed content is
 * `<id>.<timestamp>.<raw body>`, HMAC-SHA256 keyed with the base64 part of the `whsec_` secret.
 */

/** How far a timestamp may be from our clock (replayed or delayed deliveries beyond it are refused). */
export const TOLERANCE_SECONDS = 5 * 60;

export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signStandardWebhook(secret, id, Number(timestamp), body).slice(3), 'base64');
  return signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}
