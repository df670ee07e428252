import type { Bus } from '@mf/bus';
import { eventIdOf, jobEvents, type EventDef, type JobEventPayload } from '@mf/contracts';
import { withRawConnection, type Knex } from '@mf/db';
import { beginAndLockUnpublished, endRelayBatch } from '../repositories/outbox.repository';

const DEFS: Record<string, EventDef<JobEventPayload>> = Object.fromEntries(
  Object.values(jobEvents).map((d) => [d.routingKey, d]),
);

/**
 * Publishes outbox rows in order, with publisher confirms, and marks them published in the same
 * transaction that locked them. A crash between publish and commit republishes the row: delivery
 * is at least once, and the message id (the outbox row's) lets consumers drop the duplicate.
 * The transaction is two round trips (BEGIN with the lock, the marks with COMMIT), not four.
 */
export async function relayOutbox(db: Knex, bus: Bus, batch = 100): Promise<number> {
  if (!bus.connected) return 0;
  return withRawConnection(db, async (conn) => {
    // One relay at a time (across replicas), so events are published in id order: a stream that
    // skips ids it has passed would otherwise lose an event another relay published late.
    const rows = await beginAndLockUnpublished(conn, batch);
    const published: number[] = [];
    for (const row of rows) {
      const def = DEFS[row.routing_key];
      if (!def) throw new Error(`outbox row ${row.id} has unknown routing key ${row.routing_key}`);
      try {
        // The log's id goes along, so a stream can resume from a live event by the same id.
        const payload = { ...(row.payload as JobEventPayload), event_id: eventIdOf(row.id) };
        await bus.publishEvent(def, payload, { messageId: row.message_id });
      } catch {
        break; // broker trouble: keep the rest for the next run, in order
      }
      published.push(row.id);
    }
    await endRelayBatch(conn, published);
    return published.length;
  });
}
