import type { Bus } from '@mf/bus';
import { ROUTING_KEYS } from '@mf/contracts';
import type { EventHub } from './event-hub';
import { liveEventOf } from './live-event';

/**
 * Feeds this replica's hub with every job event: a broker queue of its own (exclusive, deleted with
 * the connection) bound to job.*, so each gateway replica receives every event.
 */
export function startLiveFeed(bus: Bus, hub: EventHub): Promise<void> {
  return bus.subscribe({
    bindings: [ROUTING_KEYS.jobAll],
    handle: (routingKey, payload) => {
      const event = liveEventOf(routingKey, payload);
      if (event) hub.publish(event);
    },
  });
}
