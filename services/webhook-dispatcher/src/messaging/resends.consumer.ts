import { eventHandler, type Bus } from '@mf/bus';
import { QUEUES, resendRequested } from '@mf/contracts';
import { queueResend } from '../repositories/pending-attempts.repository';
import type { AcceptDeps } from '../usecases/accept-job-event.usecase';

/**
 * Moves resend requests on the dispatcher's resend queue into their endpoint's lane, where each is
 * sent once. Recover queues into the lanes directly; this queue stays consumed so that a request
 * published to it (one left from a deployment whose recover used it) is never stranded.
 */
export function consumeResends(bus: Bus, deps: AcceptDeps, prefetch: number): Promise<void> {
  return bus.consume({
    queue: QUEUES.webhooksResends,
    bindings: [resendRequested.routingKey],
    handlers: {
      [resendRequested.routingKey]: eventHandler(resendRequested, async (req) => {
        await queueResend(deps.db, { apiKeyId: req.api_key_id, userId: req.user_id, deliveryId: req.delivery_id });
        deps.wakeLanes();
        return 'ack';
      }),
    },
    prefetch,
  });
}
