import type { Bus } from '@mf/bus';
import { eventIdOf, exportEvents, jobEvents, type EventDef } from '@mf/contracts';
import { withPooledConnection, type Knex } from '@mf/db';
import { beginAndLockUnpublished, markPublishedAndCommit } from '../repositories/outbox.repository';

const DEFS: Record<string, EventDef<object>> = Object.fromEntries(
  [...Object.values(jobEvents), ...Object.values(exportEvents)].map((d) => [d.routingKey, d as EventDef<object>]),
);

/**
 * Publishes outbox rows in order, with publisher confirms, and marks them published in the same
 * transaction that locked them. A crash between publish and commit republishes the row: delivery
 * is at least once, and the message id (the outbox row's) lets consumers drop the duplicate.
 * The transaction costs two round trips (BEGIN with the rows, the mark with COMMIT), not four:
 * the first is on every event's way to the broker.
 */
export async function relayOutbox(db: Knex, bus: Bus, batch = 100): Promise<number> {
  if (!bus.connected) return 0;
  return withPooledConnection(db, async (conn) => {
    // One relay at a time (across replicas), so events are published in id order: a stream that
    // skips ids it has passed would otherwise lose an event another relay published late.
    const rows = await beginAndLockUnpublished(conn, batch);
    const published: number[] = [];
    for (const row of rows) {
      const def = DEFS[row.routing_key];
      if (!def) throw new Error(`outbox row ${row.id} has unknown routing key ${row.routing_key}`);
      try {
        // The log's id goes along, so a stream can resume from a live event by the same id.
        const payload = { ...(row.payload as object), event_id: eventIdOf(row.id) };
        await bus.publishEvent(def, payload, { messageId: row.message_id });
      } catch {
        break; // broker trouble: keep the rest for the next run, in order
      }
      published.push(row.id);
    }
    await markPublishedAndCommit(conn, published);
    return published.length;
  });
}
