import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { WebhookPoster } from '../delivery/webhook-poster';
import type { PostResult } from '../domain/delivery-outcome';
import { webhookHeaders, type TestEvent, type WebhookEvent } from '../domain/webhook-request';
import { recordDelivery, type DeliveryRow } from '../repositories/deliveries.repository';
import { markEndpointFailing, markEndpointHealthy } from '../repositories/endpoint-health.repository';
import type { EndpointRow } from '../repositories/endpoints.repository';
import type { WebhookMetrics } from '../webhook-metrics';

/** What one attempt needs, passed in so a test can give a fake poster and a fixed clock. */
export interface AttemptDeps {
  db: Knex;
  post: WebhookPoster;
  /** Epoch ms: the signature timestamp and the attempt's duration. */
  now: () => number;
  logger: Logger;
  /** An endpoint failing without a break for this long is disabled (WEBHOOK_DISABLE_AFTER_MS). */
  disableAfterMs: number;
  metrics: WebhookMetrics;
}

export interface AttemptInput {
  endpoint: EndpointRow;
  /** The endpoint's signing secrets, opened, newest first (see signingSecrets). */
  secrets: string[];
  event: WebhookEvent | TestEvent;
  eventId: string;
  /** "" for the ping, which concerns no job (the column is NOT NULL). */
  jobId: string;
  attempt: number;
  rawBody: string;
  test?: boolean;
  /** Sent again by a resend or recover. */
  resend?: boolean;
}

export const succeeded = (result: PostResult): boolean =>
  result.kind === 'response' && result.status >= 200 && result.status <= 299;

/**
 * One signed POST (signed now), recorded whatever its result with what was sent and the start of
 * the answer. A real event's attempt also counts towards the endpoint's health: a 2xx ends a run
 * of failures, a failure starts or extends one and may disable the endpoint, and it is counted in
 * webhook_delivery_attempts_total. Tests never count.
 */
export async function sendAttempt(
  deps: AttemptDeps,
  input: AttemptInput,
): Promise<{ row: DeliveryRow; result: PostResult }> {
  const { endpoint } = input;
  const started = deps.now();
  const headers = webhookHeaders({
    event: input.event,
    test: input.test,
    eventId: input.eventId,
    attempt: input.attempt,
    timestamp: Math.floor(started / 1000),
    secrets: input.secrets,
    scheme: endpoint.signature_scheme,
    rawBody: input.rawBody,
  });
  const result = await deps.post(endpoint.url, input.rawBody, headers);
  const ok = succeeded(result);
  const row = await recordDelivery(deps.db, {
    event_id: input.eventId,
    event: input.event,
    job_id: input.jobId,
    api_key_id: endpoint.api_key_id,
    user_id: endpoint.user_id,
    attempt: input.attempt,
    url: endpoint.url,
    status_code: result.kind === 'response' ? result.status : null,
    error: result.kind === 'failure' ? result.error : null,
    duration_ms: Math.max(0, Math.round(deps.now() - started)),
    test: input.test ?? false,
    resend: input.resend ?? false,
    succeeded: ok,
    request_headers: headers,
    request_body: input.rawBody,
    response_body: result.kind === 'response' ? (result.body ?? null) : null,
  });
  if (!input.test) {
    deps.metrics.attempts.inc({ result: ok ? 'delivered' : 'failed' });
    await countTowardsHealth(deps, endpoint, ok);
  }
  return { row, result };
}

async function countTowardsHealth(deps: AttemptDeps, endpoint: EndpointRow, ok: boolean): Promise<void> {
  // Always asked (the row read before the POST may be stale); a no-op unless a run of failures is open.
  if (ok) return markEndpointHealthy(deps.db, endpoint.api_key_id, endpoint.url);
  const disabled = await markEndpointFailing(deps.db, endpoint.api_key_id, endpoint.url, deps.disableAfterMs);
  if (disabled && endpoint.disabled_at === null)
    deps.logger.warn({ apiKeyId: endpoint.api_key_id }, 'webhook endpoint disabled: failing without a break');
}
