import type { HandlerOutcome } from '@mf/bus';
import { webhookBody, type JobEventPayload } from '@mf/contracts';
import { outcomeOf } from '../domain/delivery-outcome';
import { signingSecrets } from '../domain/endpoint-secrets';
import type { SecretBox } from '../domain/secret-box';
import type { WebhookEvent } from '../domain/webhook-request';
import { findEndpoint, findEndpointForEvent } from '../repositories/endpoints.repository';
import type { KeyedLock } from './keyed-lock';
import { sendAttempt, succeeded, type AttemptDeps } from './send-attempt';

/** Everything a delivery needs, passed in so a test can give a fake poster and a fixed clock. */
export interface DeliveryDeps extends AttemptDeps {
  secrets: SecretBox;
  lock: KeyedLock;
}

export interface JobEventDelivery {
  event: WebhookEvent;
  /** The envelope's messageId: the same across retries and across an outbox republish. */
  eventId: string;
  /** 1 on the first try, from the bus's retry counter. */
  attempt: number;
  payload: JobEventPayload;
}

/**
 * Delivers one job event to the webhook of the key the job was submitted with, records the
 * attempt, and says what the bus should do next: ack (done, dropped or not retryable) or retry.
 */
export async function deliverJobEvent(deps: DeliveryDeps, delivery: JobEventDelivery): Promise<HandlerOutcome> {
  const { payload, eventId } = delivery;
  const apiKeyId = payload.api_key_id;
  // A playground job of the dashboard session has no key, hence no webhook.
  if (apiKeyId === null) return 'ack';
  return deps.lock.run(`${eventId}:${apiKeyId}`, async () => {
    // Read under the lock: a duplicate of this event delivered meanwhile is seen here.
    const found = await findEndpointForEvent(deps.db, apiKeyId, eventId);
    // No webhook for this key, or (never expected) a row of another user: nothing to send.
    if (!found || found.endpoint.user_id !== payload.user_id) return 'ack';
    const { endpoint } = found;
    // A test event (`mediaforge trigger`) goes out as test events do: whatever the filter, once
    // (never retried), marked `X-Service-Test: true`.
    const test = payload.test === true;
    // Disabled after failing without a break: no more attempts until its URL is saved again.
    if (endpoint.disabled_at !== null) {
      deps.logger.info({ eventId, apiKeyId }, 'webhook endpoint is disabled; event not sent');
      return 'ack';
    }
    if (found.delivered) {
      deps.logger.info({ eventId, apiKeyId }, 'event already delivered; dropping the duplicate');
      return 'ack';
    }
    // Filtered out: not sent and not recorded as an attempt (the event log keeps it).
    if (!endpoint.events.includes(delivery.event) && !test) return 'ack';
    let secrets: string[];
    try {
      secrets = signingSecrets(deps.secrets, endpoint, deps.now());
    } catch (err) {
      // WEBHOOK_SECRET_KEY is not the key the secret was sealed with: an operator must fix it,
      // and the dead-letter queue keeps the event until then.
      deps.logger.error(
        { err: (err as Error).message, apiKeyId: endpoint.api_key_id },
        'cannot decrypt the signing secret',
      );
      return 'dead';
    }
    // The bus's counter repeats a number when the dispatcher died between recording an attempt and
    // scheduling its retry (the message comes back as it was): the recorded attempts count too.
    const attempt = Math.max(delivery.attempt, found.lastAttempt + 1);
    const { result } = await sendAttempt(deps, {
      endpoint,
      secrets,
      event: delivery.event,
      test,
      eventId,
      jobId: payload.job_id,
      attempt,
      rawBody: webhookBody(payload),
    });
    if (test) return 'ack';
    const outcome = outcomeOf(result);
    if (!succeeded(result)) deps.logger.warn({ eventId, attempt, result, outcome }, 'webhook delivery failed');
    // The failure that disabled the endpoint is its last attempt: no retry is scheduled after it.
    if (outcome === 'retry' && (await findEndpoint(deps.db, apiKeyId))?.disabled_at) return 'ack';
    return outcome;
  });
}
