import { randomUUID } from 'node:crypto';
import type { ExportEventPayload, JobEventPayload } from '@mf/contracts';
import { pipelined, rawRowsOf, type Knex, type RawConnection } from '@mf/db';

export interface OutboxRow {
  id: number;
  message_id: string;
  routing_key: string;
  payload: unknown;
}

/** A row of the event log (the outbox read per user). */
export interface LogRow {
  id: string;
  routing_key: string;
  /** Null for an export event. */
  job_id: string | null;
  payload: JobEventPayload | ExportEventPayload;
  created_at: Date;
}

/** Namespace of the per-user advisory lock that orders a user's events (any constant unique to it). */
const EVENT_ORDER_LOCK = 1_869_575_029;

/**
 * Writes an event in the caller's transaction: it exists if and only if the state change does.
 * The user's advisory lock, held to the commit, makes the ids of one user's events become visible
 * in id order: a reader resuming after an id never misses a smaller id that committed later.
 */
export async function addToOutbox(
  trx: Knex | Knex.Transaction,
  routingKey: string,
  payload: JobEventPayload | ExportEventPayload,
): Promise<number> {
  // One statement: the lock (a CTE, so it is taken before the row, and its id, is made), then the row.
  // An export event names no job (job_id null): a job's reads never see it.
  const jobId = 'job_id' in payload ? payload.job_id : null;
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `WITH turn AS MATERIALIZED (SELECT pg_advisory_xact_lock(?, ?))
     INSERT INTO outbox (message_id, routing_key, payload, user_id, job_id) SELECT ?, ?, ?::jsonb, ?, ? FROM turn
     RETURNING id`,
    [
      EVENT_ORDER_LOCK,
      payload.user_id % 2_147_483_647,
      randomUUID(),
      routingKey,
      JSON.stringify(payload),
      payload.user_id,
      jobId,
    ],
  );
  return Number(rows[0].id);
}

/**
 * Writes a test event (no job changes with it) under the user's lock, as addToOutbox does, and
 * returns its row for the log.
 */
export async function addTestEvent(db: Knex, routingKey: string, payload: JobEventPayload): Promise<LogRow> {
  return db.transaction(async (trx) => {
    const id = await addToOutbox(trx, routingKey, payload);
    const [row] = await rawRowsOf<LogRow>(
      trx.raw('SELECT id, routing_key, job_id, payload, created_at FROM outbox WHERE id = ?', [id]),
    );
    return row;
  });
}

/**
 * `change` (an UPDATE ... RETURNING * of one job) and, only when it changed the row, `payload` in
 * the outbox: one statement, so atomic without a transaction of its own. The row, then the user's
 * lock (a CTE, before the event's id is made, as addToOutbox), then the event; resolves the row.
 */
export function changeWithEvent(
  db: Knex,
  change: Knex.QueryBuilder,
  routingKey: string,
  payload: JobEventPayload,
): Knex.QueryBuilder {
  return db
    .with('changed', change)
    .withMaterialized(
      'turn',
      db.raw('SELECT pg_advisory_xact_lock(?, ?) FROM changed', [EVENT_ORDER_LOCK, payload.user_id % 2_147_483_647]),
    )
    .with(
      'event',
      db.raw(
        'INSERT INTO outbox (message_id, routing_key, payload, user_id, job_id) SELECT ?, ?, ?::jsonb, ?, ? FROM turn',
        [randomUUID(), routingKey, JSON.stringify(payload), payload.user_id, payload.job_id],
      ),
    )
    .select('*')
    .from('changed');
}

/** Namespace and key of the relay's advisory lock: one relay publishes at a time. */
const RELAY_LOCK = [EVENT_ORDER_LOCK + 1, 0] as const;

/**
 * Opens the relay's transaction and, if it gets the relay's turn for it (one relay publishes at a
 * time, across replicas), locks the oldest unpublished events; none when another relay has the
 * turn now. One round trip: BEGIN and the statement are pipelined. The caller ends the
 * transaction (markPublishedAndCommit).
 */
export async function beginAndLockUnpublished(conn: RawConnection, limit: number): Promise<OutboxRow[]> {
  // MATERIALIZED: the lock is tried once, before any row is read (a volatile CTE is never inlined).
  const [, rows] = await pipelined(conn, [
    { text: 'BEGIN' },
    {
      text: `WITH turn AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($1, $2) AS ok)
       SELECT o.id, o.message_id, o.routing_key, o.payload FROM outbox o, turn
        WHERE turn.ok AND o.published_at IS NULL
        ORDER BY o.id LIMIT $3 FOR UPDATE OF o SKIP LOCKED`,
      values: [RELAY_LOCK[0], RELAY_LOCK[1], limit],
    },
  ]);
  return rows as OutboxRow[];
}

/**
 * Marks the events published and commits the relay's transaction: one round trip (pipelined). The commit does
 * not wait for its WAL flush (synchronous_commit off, this transaction only): a mark lost in a
 * database crash only publishes its events again, which at-least-once delivery allows (consumers
 * drop the copy by its message id), as a relay crash between publish and commit always did. The
 * events themselves were written by the state change's own, synchronous, commit.
 */
export async function markPublishedAndCommit(conn: RawConnection, ids: number[]): Promise<void> {
  const mark = [
    { text: 'SET LOCAL synchronous_commit TO off' },
    { text: 'UPDATE outbox SET published_at = now() WHERE id = ANY ($1::bigint[])', values: [ids] },
  ];
  await pipelined(conn, [...(ids.length ? mark : []), { text: 'COMMIT' }]);
}

/** A user's events (one job's, given jobId) after the row id `after`, oldest first. */
export async function listLogRows(
  db: Knex,
  q: { userId: number; after: number; limit: number; jobId?: string },
): Promise<LogRow[]> {
  const query = db('outbox')
    .select('id', 'routing_key', 'job_id', 'payload', 'created_at')
    .where({ user_id: q.userId })
    .andWhere('id', '>', q.after)
    .orderBy('id')
    .limit(q.limit);
  if (q.jobId) query.andWhere({ job_id: q.jobId });
  return query;
}

/** The log is kept as long as jobs are: published events older than that go. */
export async function deletePublishedBefore(db: Knex, days: number): Promise<void> {
  await db('outbox')
    .whereNotNull('published_at')
    .andWhere('created_at', '<', db.raw(`now() - (? * interval '1 day')`, [days]))
    .delete();
}
