import { createHmac, timingSafeEqual } from 'node:crypto';
import { TOLERANCE_SECONDS } from '../replicate/webhook-signature';

/**
 * OpenRouter's video webhook signature (docs: "Get Video Results with Webhooks"): the header
 * `X-OpenRouter-Signature: t=<unix seconds>,v1=<hex>` where the hex is HMAC-SHA256, keyed with the
 * workspace's webhook signing secret, of `<t>,<raw body>`.
 */
export const OPENROUTER_SIGNATURE_HEADER = 'x-openrouter-signature';

export function signOpenRouterWebhook(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, body)}`;
}

export function verifyOpenRouterWebhook(
  secret: string,
  header: string | undefined,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]);
  const timestamp = parts.find(([k]) => k === 't')?.[1];
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(hmacHex(secret, Number(timestamp), body), 'hex');
  return parts.some(([k, v]) => {
    if (k !== 'v1' || !v || !/^[0-9a-f]+$/i.test(v)) return false;
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function hmacHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp},${body}`).digest('hex');
}
