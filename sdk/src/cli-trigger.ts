// `mediaforge trigger <type>`: sends a signed sample job event to the key's webhook (POST /api/v1/webhook/test).
import { checkFlags, didYouMean, UsageError, type Parsed } from './cli-args';
import type { MediaforgeClient } from './client';
import { WEBHOOK_TEST_TYPES, type WebhookTestResponse, type WebhookTestType } from './webhook-deliveries';

export const TRIGGER_USAGE = `  trigger <job.completed|job.failed|job.cancelled>
                  send a sample of the event to this key's webhook (marked X-Service-Test: true)`;

/** Sends the sample; prints the attempt (its status_code shows what the receiver answered). */
export async function trigger(client: MediaforgeClient, p: Parsed): Promise<WebhookTestResponse> {
  checkFlags(p, []);
  const type = p.positional[1];
  if (!type || !(WEBHOOK_TEST_TYPES as readonly string[]).includes(type))
    throw new UsageError(
      `trigger what? one of ${WEBHOOK_TEST_TYPES.join(', ')}${type ? didYouMean(type, [...WEBHOOK_TEST_TYPES]) : ''}`,
    );
  return client.webhook.sendTest(type as WebhookTestType);
}
