import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a customer would write from our docs, kept apart from the service's signer on purpose: the
 * tests check the signature against the documented rule, not against our own code.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  nowSec = Date.now() / 1000,
  toleranceSec = 300,
): boolean {
  const header = String(headers['x-service-signature'] ?? '');
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = parts.t;
  const v1 = parts.v1;
  if (!t || !v1 || t !== headers['x-service-timestamp']) return false;
  if (Math.abs(nowSec - Number(t)) > toleranceSec) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
