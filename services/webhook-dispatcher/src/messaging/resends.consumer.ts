import { eventHandler, type Bus } from '@mf/bus';
import { QUEUES, resendRequested } from '@mf/contracts';
import type { EndpointsContext } from '../usecases/context';
import { sendQueuedResend } from '../usecases/delivery-tools.usecase';

/** Publishes a resend request to the dispatcher's own queue (confirmed by the broker). */
export function resendQueuer(bus: Bus): EndpointsContext['queueResend'] {
  return (req) => bus.publishEvent(resendRequested, req);
}

/**
 * Consumes the queued resends of recover: each is one attempt, never retried (its result is in
 * the log; recover can be called again). A crash mid-send redelivers it, and the handler then sees
 * the newer attempt and skips it.
 */
export function consumeResends(bus: Bus, ctx: EndpointsContext, prefetch: number): Promise<void> {
  return bus.consume({
    queue: QUEUES.webhooksResends,
    bindings: [resendRequested.routingKey],
    handlers: {
      [resendRequested.routingKey]: eventHandler(resendRequested, async (req) => {
        const outcome = await sendQueuedResend(ctx, req);
        if (outcome === 'skipped') ctx.logger.info({ deliveryId: req.delivery_id }, 'queued resend skipped');
        return 'ack';
      }),
    },
    prefetch,
  });
}
