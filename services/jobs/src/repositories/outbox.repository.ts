import { randomUUID } from 'node:crypto';
import type { Knex } from '@mf/db';

export interface OutboxRow {
  id: number;
  message_id: string;
  routing_key: string;
  payload: unknown;
}

/** Writes an event in the caller's transaction: it exists if and only if the state change does. */
export async function addToOutbox(trx: Knex.Transaction, routingKey: string, payload: unknown): Promise<void> {
  await trx('outbox').insert({ message_id: randomUUID(), routing_key: routingKey, payload: JSON.stringify(payload) });
}

/** The oldest unpublished events, locked for this relay (others skip them). */
export async function lockUnpublished(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
  return trx('outbox')
    .select('id', 'message_id', 'routing_key', 'payload')
    .whereNull('published_at')
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

export async function markPublished(trx: Knex.Transaction, ids: number[]): Promise<void> {
  if (ids.length) await trx('outbox').update({ published_at: trx.fn.now() }).whereIn('id', ids);
}

export async function deletePublishedBefore(db: Knex, days: number): Promise<void> {
  await db('outbox')
    .whereNotNull('published_at')
    .andWhere('published_at', '<', db.raw(`now() - (? * interval '1 day')`, [days]))
    .delete();
}
