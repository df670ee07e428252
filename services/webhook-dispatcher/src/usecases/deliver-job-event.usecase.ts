import type { HandlerOutcome } from '@mf/bus';
import type { JobEventPayload } from '@mf/contracts';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import type { WebhookPoster } from '../delivery/webhook-poster';
import { outcomeOf, type PostResult } from '../domain/delivery-outcome';
import type { SecretBox } from '../domain/secret-box';
import { webhookBody, webhookHeaders, type WebhookEvent } from '../domain/webhook-request';
import { hasSuccessfulDelivery, recordDelivery } from '../repositories/deliveries.repository';
import { findEndpoint, type EndpointRow } from '../repositories/endpoints.repository';
import type { KeyedLock } from './keyed-lock';

/** Everything a delivery needs, passed in so a test can give a fake poster and a fixed clock. */
export interface DeliveryDeps {
  db: Knex;
  post: WebhookPoster;
  /** Epoch ms: the signature timestamp and the attempt's duration. */
  now: () => number;
  secrets: SecretBox;
  logger: Logger;
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
  const endpoint = await findEndpoint(deps.db, apiKeyId);
  // No webhook for this key, or (never expected) a row of another user: nothing to send.
  if (!endpoint || endpoint.user_id !== payload.user_id) return 'ack';

  return deps.lock.run(`${eventId}:${apiKeyId}`, async () => {
    if (await hasSuccessfulDelivery(deps.db, eventId, apiKeyId)) {
      deps.logger.info({ eventId, apiKeyId }, 'event already delivered; dropping the duplicate');
      return 'ack';
    }
    let secret: string;
    try {
      secret = deps.secrets.open(endpoint.secret_ciphertext);
    } catch (err) {
      // WEBHOOK_SECRET_KEY is not the key the secret was sealed with: an operator must fix it,
      // and the dead-letter queue keeps the event until then.
      deps.logger.error(
        { err: (err as Error).message, apiKeyId: endpoint.api_key_id },
        'cannot decrypt the signing secret',
      );
      return 'dead';
    }
    const result = await attempt(deps, delivery, endpoint, secret);
    const outcome = outcomeOf(result);
    const delivered = result.kind === 'response' && result.status >= 200 && result.status <= 299;
    if (!delivered)
      deps.logger.warn({ eventId, attempt: delivery.attempt, result, outcome }, 'webhook delivery failed');
    return outcome;
  });
}

/** One signed POST, recorded whatever its result. */
async function attempt(
  deps: DeliveryDeps,
  delivery: JobEventDelivery,
  endpoint: EndpointRow,
  secret: string,
): Promise<PostResult> {
  const rawBody = webhookBody(delivery.payload);
  const started = deps.now();
  const headers = webhookHeaders({
    event: delivery.event,
    eventId: delivery.eventId,
    attempt: delivery.attempt,
    timestamp: Math.floor(started / 1000),
    secret,
    rawBody,
  });
  const post = await deps.post(endpoint.url, rawBody, headers);
  await recordDelivery(deps.db, {
    event_id: delivery.eventId,
    event: delivery.event,
    job_id: delivery.payload.job_id,
    api_key_id: endpoint.api_key_id,
    user_id: endpoint.user_id,
    attempt: delivery.attempt,
    url: endpoint.url,
    status_code: post.kind === 'response' ? post.status : null,
    error: post.kind === 'failure' ? post.error : null,
    duration_ms: Math.max(0, Math.round(deps.now() - started)),
  });
  return post;
}
