import { WEBHOOK_USER_AGENT } from '@mf/contracts';
import { signatureHeader, standardSignatureHeader, type SignatureScheme } from './signing';

/** The X-Service-Event values: the job event routing keys (job.cancelled is ours, see api-behaviour.md). */
export type WebhookEvent = 'job.completed' | 'job.failed' | 'job.cancelled';

/** The event a user sends from the dashboard to check their receiver (no job, never retried). */
export const TEST_EVENT = 'webhook.test';
export type TestEvent = typeof TEST_EVENT;

/** The test event's body: which key it is for and when it was sent. */
export function testEventBody(apiKeyId: number, sentAt: Date): string {
  return JSON.stringify({ event: TEST_EVENT, api_key_id: apiKeyId, sent_at: sentAt.toISOString() });
}

/** Marks a delivery sent from the dashboard to test a receiver: a handler should not act on it. */
export const TEST_HEADER = 'X-Service-Test';

export interface SignedHeaderInput {
  event: WebhookEvent | TestEvent;
  /** A test delivery: adds `X-Service-Test: true`. */
  test?: boolean;
  eventId: string;
  attempt: number;
  /** Unix seconds. */
  timestamp: number;
  /** The signing secrets, newest first: two during a rotation's overlap, one otherwise. */
  secrets: readonly string[];
  /** Default `stripe` (the contract's X-Service-Signature). */
  scheme?: SignatureScheme;
  rawBody: string;
}

/**
 * Every header we send (transport headers such as Host and Content-Length come from Node). The
 * `standard` scheme signs with `webhook-id`/`webhook-timestamp`/`webhook-signature` in place of
 * X-Service-Timestamp/X-Service-Signature; the body and the other headers are the same.
 */
export function webhookHeaders(input: SignedHeaderInput): Record<string, string> {
  const signature: Record<string, string> =
    input.scheme === 'standard'
      ? {
          'webhook-id': input.eventId,
          'webhook-timestamp': String(input.timestamp),
          'webhook-signature': standardSignatureHeader(input.secrets, input.eventId, input.timestamp, input.rawBody),
        }
      : {
          'X-Service-Timestamp': String(input.timestamp),
          'X-Service-Signature': signatureHeader(input.secrets, input.timestamp, input.rawBody),
        };
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Event': input.event,
    ...signature,
    'X-Service-Event-Id': input.eventId,
    'X-Service-Delivery-Attempt': String(input.attempt),
    ...(input.test ? { [TEST_HEADER]: 'true' } : {}),
  };
}
