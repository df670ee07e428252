import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. Shown to the customer once. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The X-Service-Signature value: `t=<ts>,v1=<hex HMAC-SHA256>` over "<ts>.<raw body>", keyed with
 * the whole secret string (prefix included) as UTF-8, as the contract's signature rule says.
 */
export function signatureHeader(secret: string, timestamp: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${mac}`;
}
