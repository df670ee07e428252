import type { Bus } from '@mf/bus';
import { ROUTING_KEYS } from '@mf/contracts';
import type { EventHub } from './event-hub';
import { liveEventOf } from './live-event';

/**
 * Feeds this replica's hub with every job and export event: a broker queue of its own (exclusive,
 * deleted with the connection) bound to job.* and export.*, so each gateway replica receives every event. Events published
 * while this replica was disconnected never reach its queue: after a reconnect `onResubscribed`
 * runs (the gateway ends its open streams there, so their clients resume from the log with
 * Last-Event-ID instead of going on with a gap).
 */
export function startLiveFeed(bus: Bus, hub: EventHub, onResubscribed: () => void = () => undefined): Promise<void> {
  let subscribed = false;
  return bus.subscribe({
    bindings: [ROUTING_KEYS.jobAll, ROUTING_KEYS.exportAll],
    handle: (routingKey, payload) => {
      // Most events belong to users with no stream here: skip validating them (a whole Job each).
      if (!hub.listensTo((payload as { user_id?: unknown } | null)?.user_id)) return;
      const event = liveEventOf(routingKey, payload);
      if (event) hub.publish(event);
    },
    onSubscribed: () => {
      if (subscribed) onResubscribed();
      subscribed = true;
    },
  });
}
