import { createHmac, randomBytes } from 'node:crypto';

/** How an endpoint's deliveries are signed. */
export const SIGNATURE_SCHEMES = ['stripe', 'standard'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/**
 * A new signing secret: `whsec_` and 32 random bytes. Shown to the customer once. The `stripe`
 * scheme keys its HMAC with the whole string, so any alphabet works and base64url is kept; the
 * Standard Webhooks libraries decode the part after `whsec_` as standard base64, so that scheme's
 * secrets are written so.
 */
export function generateSigningSecret(scheme: SignatureScheme = 'stripe'): string {
  const bytes = randomBytes(32);
  return `whsec_${bytes.toString(scheme === 'standard' ? 'base64' : 'base64url')}`;
}

/**
 * The X-Service-Signature value: `t=<ts>,v1=<hex HMAC-SHA256>` over "<ts>.<raw body>", keyed with
 * the whole secret string (prefix included) as UTF-8, as the contract's signature rule says. With
 * more than one secret (a rotation's overlap) one `v1=` per secret, newest first: Stripe's format
 * for a rolling secret, which its libraries accept when any `v1` matches.
 */
export function signatureHeader(secrets: string | readonly string[], timestamp: number, rawBody: string): string {
  const macs = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')}`,
  );
  return [`t=${timestamp}`, ...macs].join(',');
}

/** The HMAC key of a Standard Webhooks secret: the bytes the base64 after `whsec_` encodes. */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * The `webhook-signature` value of the Standard Webhooks scheme: `v1,<base64 HMAC-SHA256>` over
 * "<id>.<timestamp>.<raw body>" per secret, space-separated (newest first during an overlap).
 */
export function standardSignatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestamp: number,
  rawBody: string,
): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', standardKey(secret)).update(`${messageId}.${timestamp}.${rawBody}`, 'utf8').digest('base64')}`,
    )
    .join(' ');
}

/** Whether a secret can sign for the Standard Webhooks scheme (its receivers decode it as base64). */
export function isStandardSecret(secret: string): boolean {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return false;
  const length = Buffer.from(body, 'base64').length;
  return length >= 24 && length <= 64;
}
