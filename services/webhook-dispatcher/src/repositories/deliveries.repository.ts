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
  /** A test sent from the dashboard or the API; false (the default) for real events. */
  test?: boolean;
  /** Answered with a 2xx. */
  succeeded?: boolean;
  /** Made by a resend or recover (not by the event's own delivery and retries). */
  resend?: boolean;
  /** What was sent (signature included) and the first 4 KB of the answer. */
  request_headers?: Record<string, string> | null;
  request_body?: string | null;
  response_body?: string | null;
}

export interface DeliveryRow extends NewDelivery {
  id: number;
  test: boolean;
  succeeded: boolean;
  resend: boolean;
  request_headers: Record<string, string> | null;
  request_body: string | null;
  response_body: string | null;
  created_at: Date;
}

export interface DeliveryFilter {
  limit: number;
  status?: 'failed' | 'succeeded';
  /** A delivery id: only older attempts. */
  startingAfter?: number;
  /** Only attempts made within these bounds (inclusive). */
  createdGte?: Date;
  createdLte?: Date;
}

export async function recordDelivery(db: Knex, delivery: NewDelivery): Promise<DeliveryRow> {
  const row = {
    ...delivery,
    // jsonb: knex would send a plain object as a Postgres composite.
    request_headers: delivery.request_headers ? JSON.stringify(delivery.request_headers) : null,
  };
  const [inserted] = await rowsOf<DeliveryRow>(db('deliveries').insert(row).returning('*'));
  return inserted;
}

/** The key's attempts, newest first. */
export async function listDeliveries(
  db: Knex,
  apiKeyId: number,
  userId: number,
  filter: DeliveryFilter,
): Promise<DeliveryRow[]> {
  const q = db('deliveries').select('*').where({ api_key_id: apiKeyId, user_id: userId });
  if (filter.status) q.andWhere('succeeded', filter.status === 'succeeded');
  if (filter.startingAfter !== undefined) q.andWhere('id', '<', filter.startingAfter);
  if (filter.createdGte !== undefined) q.andWhere('created_at', '>=', filter.createdGte);
  if (filter.createdLte !== undefined) q.andWhere('created_at', '<=', filter.createdLte);
  return q.orderBy('id', 'desc').limit(filter.limit);
}

/** One attempt of the key's; undefined when it is another key's or does not exist. */
export async function findDelivery(
  db: Knex,
  id: number,
  apiKeyId: number,
  userId: number,
): Promise<DeliveryRow | undefined> {
  return rowOf<DeliveryRow>(db('deliveries').first('*').where({ id, api_key_id: apiKeyId, user_id: userId }));
}

/** Whether the event of this attempt has been attempted again since (a resend or recover did it). */
export async function hasNewerAttempt(
  db: Knex,
  row: Pick<DeliveryRow, 'id' | 'event_id' | 'api_key_id'>,
): Promise<boolean> {
  const newer = await rowOf<{ id: number }>(
    db('deliveries')
      .first('id')
      .where({ event_id: row.event_id, api_key_id: row.api_key_id })
      .andWhere('id', '>', row.id),
  );
  return newer !== undefined;
}

/** The highest attempt number of an event to a key: a resend is the next one. */
export async function lastAttemptNumber(db: Knex, eventId: string, apiKeyId: number): Promise<number> {
  const row = await rowOf<{ max: number | null }>(
    db('deliveries').max('attempt as max').where({ event_id: eventId, api_key_id: apiKeyId }).first(),
  );
  return row?.max ?? 0;
}
