import type { JobEventPayload } from '@mf/contracts';
import { signatureHeader } from './signing';

export const USER_AGENT = 'Mediaforge-Webhooks/1.0';

/** The X-Service-Event values: the job event routing keys (job.cancelled is ours, see api-behaviour.md). */
export type WebhookEvent = 'job.completed' | 'job.failed' | 'job.cancelled';

/** The event a user sends from the dashboard to check their receiver (no job, never retried). */
export const TEST_EVENT = 'webhook.test';
export type TestEvent = typeof TEST_EVENT;

/** The test event's body: which key it is for and when it was sent. */
export function testEventBody(apiKeyId: number, sentAt: Date): string {
  return JSON.stringify({ event: TEST_EVENT, api_key_id: apiKeyId, sent_at: sentAt.toISOString() });
}

/**
 * The webhook body, keys in the contract's order. `model` is the upstream endpoint path: the
 * contract says so for webhook bodies. Then two additions: `source` (api, editor or dashboard)
 * and `project_id` (editor jobs), so a receiver can tell the editor's generations from its own.
 */
export function webhookBody(payload: JobEventPayload): string {
  return JSON.stringify({
    job_id: payload.job_id,
    status: payload.status,
    model: payload.upstream_model,
    type: payload.type,
    credits_consumed: payload.credits_consumed,
    created_at: payload.created_at,
    completed_at: payload.completed_at,
    result: payload.result,
    error: payload.error,
    source: payload.source ?? 'api',
    project_id: payload.project_id ?? null,
  });
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
  secret: string;
  rawBody: string;
}

/** Every header we send (transport headers such as Host and Content-Length come from Node). */
export function webhookHeaders(input: SignedHeaderInput): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Event': input.event,
    'X-Service-Timestamp': String(input.timestamp),
    'X-Service-Signature': signatureHeader(input.secret, input.timestamp, input.rawBody),
    'X-Service-Event-Id': input.eventId,
    'X-Service-Delivery-Attempt': String(input.attempt),
    ...(input.test ? { [TEST_HEADER]: 'true' } : {}),
  };
}
