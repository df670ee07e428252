import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import type { WebhookEvent, WebhookEventType, WebhookJob } from './types';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * The raw request body, exactly as received (before any JSON parsing). A node Buffer is a
   * Uint8Array: the published types name only the standard one, so they compile without @types/node.
   */
  payload: string | Uint8Array;
  /** The request headers (node's IncomingHttpHeaders, a fetch Headers, or any record; names are case-insensitive). */
  headers: WebhookHeaders;
  /** The key's signing secret, the whole `whsec_...` string. */
  secret: string;
  /** Largest accepted distance between `t` and now, in seconds (default 300). */
  toleranceSec?: number;
  /** The current time: a Date or Unix milliseconds (tests). */
  now?: Date | number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const v = (headers as Headers).get(name);
    return v ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

/** Parses `t=<ts>,v1=<hex>` (further `v1=` entries are accepted as alternatives, for rotation). */
export function parseSignatureHeader(value: string): { t: string; timestamp: number; v1: string[] } {
  let t: string | undefined;
  const v1: string[] = [];
  for (const item of value.split(',')) {
    const i = item.indexOf('=');
    if (i <= 0) throw new WebhookVerificationError('malformed X-Service-Signature header');
    const k = item.slice(0, i).trim();
    const v = item.slice(i + 1).trim();
    if (k === 't') {
      if (t !== undefined) throw new WebhookVerificationError('malformed X-Service-Signature header: repeated t');
      t = v;
    } else if (k === 'v1') v1.push(v);
  }
  if (t === undefined || !/^\d{1,12}$/.test(t))
    throw new WebhookVerificationError('malformed X-Service-Signature header: no valid t');
  if (v1.length === 0) throw new WebhookVerificationError('malformed X-Service-Signature header: no v1 signature');
  for (const s of v1)
    if (!/^[0-9a-fA-F]{64}$/.test(s))
      throw new WebhookVerificationError('malformed X-Service-Signature header: v1 is not a hex SHA-256');
  return { t, timestamp: Number(t), v1: v1.map((s) => s.toLowerCase()) };
}

/** The hex HMAC-SHA256 of `${t}.${body}` keyed with the secret (UTF-8). */
export function computeSignature(secret: string, timestamp: number | string, payload: string | Uint8Array): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload)
    .digest('hex');
}

/** Builds an X-Service-Signature value (for tests and local tooling). */
export function signWebhook(
  secret: string,
  payload: string | Uint8Array,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, payload)}`;
}

/**
 * Builds a Standard Webhooks `webhook-signature` value, `v1,<base64 HMAC-SHA256>` of
 * "<id>.<timestamp>.<body>" keyed with the bytes the base64 after `whsec_` encodes (for tests and
 * local tooling; receivers of that scheme verify with the `standardwebhooks` package).
 */
export function signStandardWebhook(
  secret: string,
  id: string,
  payload: string | Uint8Array,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), Buffer.from(payload)]);
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/**
 * Verifies a webhook delivery (docs/webhooks.md, "Verifying a delivery") and returns the event.
 * Throws WebhookVerificationError for a missing or malformed signature header, a timestamp more
 * than toleranceSec away from now (either way), a signature that does not match (compared in
 * constant time), or a body that is not a JSON object. Answer 401 when it throws.
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent {
  const { payload, headers, secret, toleranceSec = 300 } = options;
  if (!secret) throw new WebhookVerificationError('no signing secret given');
  if (payload === undefined || payload === null) throw new WebhookVerificationError('no payload');
  const sigHeader = header(headers, 'x-service-signature');
  if (!sigHeader) throw new WebhookVerificationError('missing X-Service-Signature header');
  const { t, timestamp, v1 } = parseSignatureHeader(sigHeader);

  const tsHeader = header(headers, 'x-service-timestamp');
  if (tsHeader !== undefined && tsHeader.trim() !== t)
    throw new WebhookVerificationError('X-Service-Timestamp does not match the signature timestamp');

  const nowMs =
    options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const skew = nowMs / 1000 - timestamp;
  if (skew > toleranceSec)
    throw new WebhookVerificationError(`timestamp too old (${Math.round(skew)} s > ${toleranceSec} s tolerance)`);
  if (-skew > toleranceSec)
    throw new WebhookVerificationError(
      `timestamp in the future (${Math.round(-skew)} s > ${toleranceSec} s tolerance)`,
    );

  const raw =
    typeof payload === 'string'
      ? Buffer.from(payload, 'utf8')
      : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const expected = Buffer.from(computeSignature(secret, t, raw), 'hex');
  let match = false;
  for (const s of v1) {
    const given = Buffer.from(s, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  if (!match) throw new WebhookVerificationError('signature mismatch');

  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('body is not valid JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new WebhookVerificationError('body is not a JSON object');
  const job = data as WebhookJob;
  const eventHeader = header(headers, 'x-service-event');
  const type = (eventHeader ?? `job.${job.status}`) as WebhookEventType;
  const attempt = header(headers, 'x-service-delivery-attempt');
  return {
    type,
    id: header(headers, 'x-service-event-id') ?? null,
    timestamp,
    attempt: attempt !== undefined && /^\d+$/.test(attempt) ? Number(attempt) : null,
    data: job,
  };
}
