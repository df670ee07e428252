import { rawRowsOf, rowOf, rowsOf, type Knex } from '@mf/db';
import type { JobRow } from '../domain/job';

/** The module that speaks SQL about jobs (the poller's claim of due jobs: due-jobs.repository.ts). */

type Db = Knex | Knex.Transaction;

/** What a new job row is given (the rest are defaults). */
export type NewJobRow = Omit<
  JobRow,
  | 'created_at'
  | 'updated_at'
  | 'completed_at'
  | 'next_poll_at'
  | 'poll_failures'
  | 'result_keys'
  | 'error'
  | 'provider_request_id'
  | 'refund_state'
  | 'cancelled_by'
  | 'attempt'
  | 'attempt_deadline_at'
  | 'progress'
  | 'queue_position'
  | 'progress_event_at'
>;

/**
 * A new job already on its first attempt (on its own provider and upstream model), with that
 * attempt recorded as submitting: one statement, so the row never exists without its attempt.
 */
export async function insertJobOnFirstAttempt(
  db: Db,
  row: NewJobRow,
  attempt: { provider_type: string | null; upstream_model: string | null },
): Promise<JobRow> {
  const firstAttempt = db('job_attempts').insert({
    job_id: row.id,
    n: 1,
    provider: row.provider,
    provider_type: attempt.provider_type,
    upstream_model: attempt.upstream_model,
    state: 'submitting',
  });
  const [created] = await rowsOf<JobRow>(
    db
      .with(
        'job',
        db('jobs')
          .insert({ ...row, attempt: 1, params: JSON.stringify(row.params), routes: JSON.stringify(row.routes) })
          .returning('*'),
      )
      .with('first_attempt', firstAttempt)
      .select('*')
      .from('job'),
  );
  return created;
}

/**
 * Inserts the job unless its user submitted one under its idempotency key since `since` (answered
 * instead), one submit of a key at a time: a redelivered request and its retry make one job.
 */
export async function insertJobUnlessKeyed(
  db: Knex,
  row: NewJobRow & { idempotency_key: string },
  attempt: { provider_type: string | null; upstream_model: string | null },
  since: Date,
): Promise<{ job: JobRow; inserted: boolean }> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`jobs.submit:${row.user_id}:${row.idempotency_key}`]);
    const earlier = await findJobByIdempotencyKey(trx, row.user_id, row.idempotency_key, since);
    if (earlier) return { job: earlier, inserted: false };
    return { job: await insertJobOnFirstAttempt(trx, row, attempt), inserted: true };
  });
}

/**
 * The newest job of `userId` submitted under `key` since `since`, unless its submit was rejected
 * (a rejected submit charged nothing that stays, so a retry may submit afresh).
 */
export async function findJobByIdempotencyKey(
  db: Db,
  userId: number,
  key: string,
  since: Date,
): Promise<JobRow | undefined> {
  return rowOf<JobRow>(
    db('jobs')
      .first('*')
      .where({ user_id: userId, idempotency_key: key })
      .andWhere('created_at', '>=', since)
      .whereNot('status', 'rejected')
      .orderBy('created_at', 'desc'),
  );
}

export async function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return rowOf<JobRow>(db('jobs').first('*').where({ id }));
}

/** The statuses a user sees (a job being submitted, or rejected at submit, is not shown). */
const VISIBLE_STATUSES = ['processing', 'completed', 'failed', 'cancelled'];

export async function findVisibleJob(
  db: Db,
  userId: number,
  id: string,
  forUpdate = false,
): Promise<JobRow | undefined> {
  const q = db('jobs').first('*').where({ id, user_id: userId }).whereIn('status', VISIBLE_STATUSES);
  return rowOf<JobRow>(forUpdate ? q.forUpdate() : q);
}

/**
 * The visible jobs among `ids`, whoever owns them (the caller matches each to its reader): one
 * parameterised statement, the same text for any number of ids, for a batch of reads.
 */
export async function findVisibleJobsByIds(db: Db, ids: string[]): Promise<JobRow[]> {
  return rawRowsOf<JobRow>(
    db.raw('SELECT * FROM jobs WHERE id = ANY(?::text[]) AND status = ANY(?::text[])', [ids, VISIBLE_STATUSES]),
  );
}

/** Filters of a job list: each narrows it (all must hold). */
export interface JobFilters {
  status?: JobRow['status'];
  modelId?: string;
  type?: JobRow['type'];
  apiKeyId?: number;
  /** Created within these bounds (inclusive). */
  createdGte?: Date;
  createdLte?: Date;
}

/**
 * A page of the user's visible jobs, newest first, matching `filters`. Keyset pagination on
 * (created_at, id): a job submitted while the user pages does not shift the next page. The
 * filters ride on the (user_id, created_at, id) index walk: a user's jobs are kept about 30 days.
 */
export async function listVisibleJobs(
  db: Db,
  userId: number,
  limit: number,
  beforeId?: string,
  filters: JobFilters = {},
): Promise<JobRow[]> {
  const q = db('jobs')
    .select('*')
    .where({ user_id: userId })
    .whereIn('status', ['processing', 'completed', 'failed', 'cancelled'])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (filters.status !== undefined) q.andWhere('status', filters.status);
  if (filters.modelId !== undefined) q.andWhere('model_id', filters.modelId);
  if (filters.type !== undefined) q.andWhere('type', filters.type);
  if (filters.apiKeyId !== undefined) q.andWhere('api_key_id', filters.apiKeyId);
  if (filters.createdGte !== undefined) q.andWhere('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q.andWhere('created_at', '<=', filters.createdLte);
  // The cursor's created_at is read in SQL: a JS Date would drop its microseconds.
  if (beforeId !== undefined)
    q.andWhereRaw('(created_at, id) < (SELECT created_at, id FROM jobs WHERE id = ?)', [beforeId]);
  return q;
}

export async function deleteJob(db: Db, id: string): Promise<void> {
  await db('jobs').where({ id }).delete();
}

/**
 * Moves a job from one status to another, only if it is still in `from` (and, given `attempt`, still
 * on that attempt): the compare-and-set that makes racing transitions (cancel vs completion, sweeper
 * vs a slow submit, a late result of an attempt already given up) end in exactly one.
 */
export async function transition(
  db: Db,
  id: string,
  from: JobRow['status'],
  changes: Partial<Omit<JobRow, 'params' | 'routes'>>,
  attempt?: number,
): Promise<JobRow | undefined> {
  const [row] = await rowsOf<JobRow>(transitionStatement(db, id, from, changes, attempt));
  return row;
}

/** `transition` as a statement (UPDATE ... RETURNING *), to run inside a larger one. */
export function transitionStatement(
  db: Db,
  id: string,
  from: JobRow['status'],
  changes: Partial<Omit<JobRow, 'params' | 'routes'>>,
  attempt?: number,
): Knex.QueryBuilder {
  const q = db('jobs')
    .update({
      ...changes,
      result_keys: changes.result_keys === undefined ? undefined : JSON.stringify(changes.result_keys),
      updated_at: db.fn.now(),
    })
    .where({ id, status: from });
  if (attempt !== undefined) q.andWhere({ attempt });
  return q.returning('*');
}

export { claimDueJobs, type DueJobsOf } from './due-jobs.repository';

/**
 * Claims one processing job now whatever its next_poll_at (a provider called back), with the same
 * lease as claimDueJobs: another poller leaves it alone while it is handled here, and takes it
 * when the lease ends if this process dies on it. Undefined when the job is not processing, or,
 * given `on`, not on that attempt with one of those providers.
 */
export async function claimJob(
  db: Knex,
  id: string,
  leaseMs: number,
  on?: { attempt: number; providers: string[] },
): Promise<JobRow | undefined> {
  const claim = db('jobs')
    .update({
      next_poll_at: db.raw(
        `LEAST(now() + (? * interval '1 millisecond'), GREATEST(deadline_at, now() + interval '5 seconds'))`,
        [leaseMs],
      ),
    })
    .where({ id, status: 'processing' })
    .returning('*');
  if (on) claim.andWhere({ attempt: on.attempt }).whereIn('provider', on.providers);
  const [row] = await rowsOf<JobRow>(claim);
  return row;
}

export async function schedulePoll(db: Db, id: string, inMs: number, failed = false): Promise<void> {
  await db('jobs')
    .update({
      next_poll_at: db.raw(`now() + (? * interval '1 millisecond')`, [inMs]),
      poll_failures: failed ? db.raw('poll_failures + 1') : 0,
    })
    .where({ id, status: 'processing' });
}

/** Makes a processing job due now (a provider callback arrived). */
export async function pollNow(db: Db, id: string): Promise<boolean> {
  return (await db('jobs').update({ next_poll_at: db.fn.now() }).where({ id, status: 'processing' })) > 0;
}

export async function findStuckSubmitting(db: Db, olderThanMs: number, limit: number): Promise<JobRow[]> {
  return db('jobs')
    .select('*')
    .where({ status: 'submitting' })
    .andWhere('created_at', '<', db.raw(`now() - (? * interval '1 millisecond')`, [olderThanMs]))
    .orderBy('created_at')
    .limit(limit);
}

export async function findPendingRefunds(db: Db, limit: number): Promise<JobRow[]> {
  return db('jobs').select('*').where({ refund_state: 'pending' }).orderBy('updated_at').limit(limit);
}

export async function markRefunded(db: Db, id: string): Promise<void> {
  await db('jobs').update({ refund_state: 'done', updated_at: db.fn.now() }).where({ id, refund_state: 'pending' });
}

/** Jobs past retention, oldest first (terminal or never visible). */
export async function findExpired(db: Db, retentionDays: number, limit: number): Promise<Pick<JobRow, 'id'>[]> {
  return db('jobs')
    .select('id')
    .whereIn('status', ['completed', 'failed', 'cancelled', 'rejected'])
    .andWhere('created_at', '<', db.raw(`now() - (? * interval '1 day')`, [retentionDays]))
    .whereNot({ refund_state: 'pending' })
    .orderBy('created_at')
    .limit(limit);
}

export async function deleteJobs(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db('jobs').whereIn('id', ids).delete();
}
