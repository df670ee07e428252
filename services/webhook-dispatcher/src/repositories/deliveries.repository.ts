import { rowOf, rowsOf, type Knex } from '@mf/db';

/** The only module that speaks SQL about delivery attempts. */

export interface NewDelivery {
  event_id: string;
  event: string;
  job_id: string;
  api_key_id: number;
  user_id: number;
  attempt: number;
  url: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** A test sent from the dashboard; false (the default) for real events. */
  test?: boolean;
}

export interface DeliveryRow extends NewDelivery {
  id: number;
  test: boolean;
  created_at: Date;
}

export async function recordDelivery(db: Knex, delivery: NewDelivery): Promise<DeliveryRow> {
  const [row] = await rowsOf<DeliveryRow>(db('deliveries').insert(delivery).returning('*'));
  return row;
}

/** Whether some attempt of this event to this key's endpoint was answered with a 2xx. */
export async function hasSuccessfulDelivery(db: Knex, eventId: string, apiKeyId: number): Promise<boolean> {
  const row = await rowOf<{ id: number }>(
    db('deliveries')
      .first('id')
      .where({ event_id: eventId, api_key_id: apiKeyId })
      .andWhereBetween('status_code', [200, 299]),
  );
  return row !== undefined;
}

/** The key's attempts, newest first. */
export async function listDeliveries(
  db: Knex,
  apiKeyId: number,
  userId: number,
  limit: number,
): Promise<DeliveryRow[]> {
  return db('deliveries')
    .select('*')
    .where({ api_key_id: apiKeyId, user_id: userId })
    .orderBy('id', 'desc')
    .limit(limit);
}
