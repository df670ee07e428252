// `mediaforge trigger <type>`: records a sample job event in the log (POST /api/v1/events/trigger),
// from where it reaches a running `listen` and the key's webhook endpoint as any event does.
import { checkFlags, didYouMean, UsageError, type Parsed } from './cli-args';
import type { MediaforgeClient } from './client';
import type { TriggerEventResponse, TriggerEventType } from './types';
import { WEBHOOK_TEST_TYPES } from './webhook-deliveries';

export const TRIGGER_USAGE = `  trigger <job.completed|job.failed|job.cancelled>
                  send a sample of the event through your event log: a running listen forwards
                  it and this key's webhook gets it, both marked X-Service-Test: true`;

/** Records the sample; prints the test event (its id is the X-Service-Event-Id both receivers see). */
export async function trigger(client: MediaforgeClient, p: Parsed): Promise<TriggerEventResponse> {
  checkFlags(p, []);
  const type = p.positional[1];
  if (!type || !(WEBHOOK_TEST_TYPES as readonly string[]).includes(type))
    throw new UsageError(
      `trigger what? one of ${WEBHOOK_TEST_TYPES.join(', ')}${type ? didYouMean(type, [...WEBHOOK_TEST_TYPES]) : ''}`,
    );
  return client.events.trigger(type as TriggerEventType);
}
