import { rowOf, rowsOf, type Knex } from '@mf/db';
import type { AttemptOutcome } from '../routing/provider-metrics';

type Db = Knex | Knex.Transaction;

export type AttemptState = 'submitting' | 'running' | AttemptOutcome;

export interface AttemptRow {
  job_id: string;
  n: number;
  provider: string;
  provider_type: string | null;
  upstream_model: string | null;
  upstream_id: string | null;
  state: AttemptState;
  error: string | null;
  progress: number | null;
  started_at: Date;
  ended_at: Date | null;
  /** US dollars (numeric: the driver returns text); null when unknown or none. */
  upstream_cost: string | null;
  upstream_cost_source: UpstreamCostSource | null;
}

/** How an attempt's upstream cost was known (docs/usage.md). */
export type UpstreamCostSource = 'reported' | 'metered' | 'price';

/** States of an attempt that has not ended. */
export const OPEN_STATES: readonly AttemptState[] = ['submitting', 'running'];

export async function insertAttempt(
  db: Db,
  row: Pick<AttemptRow, 'job_id' | 'n' | 'provider' | 'provider_type' | 'upstream_model'>,
): Promise<void> {
  await db('job_attempts').insert({ ...row, state: 'submitting' });
}

export async function findAttempt(db: Db, jobId: string, n: number): Promise<AttemptRow | undefined> {
  return rowOf<AttemptRow>(db('job_attempts').first('*').where({ job_id: jobId, n }));
}

export async function listAttempts(db: Db, jobId: string): Promise<AttemptRow[]> {
  return db('job_attempts').select('*').where({ job_id: jobId }).orderBy('n');
}

/** The upstream took the request: its id is kept even when the attempt already ended (so it can be cancelled). */
export function markAttemptRunning(db: Db, jobId: string, n: number, upstreamId: string): Knex.QueryBuilder {
  return db('job_attempts')
    .update({ upstream_id: upstreamId, state: db.raw(`CASE WHEN state = 'submitting' THEN 'running' ELSE state END`) })
    .where({ job_id: jobId, n });
}

/** Ends an open attempt; returns it, or undefined when it had already ended (the first outcome stays). */
export async function endAttempt(
  db: Db,
  jobId: string,
  n: number,
  state: AttemptOutcome,
  error: string | null,
): Promise<AttemptRow | undefined> {
  const [row] = await rowsOf<AttemptRow>(
    db('job_attempts')
      .update({ state, error, ended_at: db.fn.now() })
      .where({ job_id: jobId, n })
      .whereIn('state', OPEN_STATES as string[])
      .returning('*'),
  );
  return row;
}

/**
 * endAttempt as part of a statement whose CTE `changed` (the job's change) it follows: the attempt
 * ends only if the job changed. Returns the attempt's start (for its duration), no row when it had
 * already ended.
 */
export function endAttemptIfChanged(db: Knex, jobId: string, n: number, state: AttemptOutcome): Knex.QueryBuilder {
  return db('job_attempts')
    .update({ state, error: null, ended_at: db.fn.now() })
    .where({ job_id: jobId, n })
    .whereIn('state', OPEN_STATES as string[])
    .whereExists(db.select(db.raw('1')).from('changed'))
    .returning('started_at');
}

/**
 * Records what an attempt cost upstream, once: true when this call recorded it (a second poll of the
 * same result, or a retried store, finds it set and changes nothing).
 */
export async function setAttemptCost(
  db: Db,
  jobId: string,
  n: number,
  cost: { usd: number; source: UpstreamCostSource },
): Promise<boolean> {
  const changed = await db('job_attempts')
    .update({ upstream_cost: cost.usd, upstream_cost_source: cost.source })
    .where({ job_id: jobId, n })
    .whereNull('upstream_cost');
  return changed > 0;
}

export async function setAttemptProgress(db: Db, jobId: string, n: number, progress: number): Promise<void> {
  await db('job_attempts').update({ progress }).where({ job_id: jobId, n, state: 'running' });
}

/** Attempts of a job that have not ended (a job ended under them: they are abandoned). */
export async function openAttempts(db: Db, jobId: string): Promise<AttemptRow[]> {
  return db('job_attempts')
    .select('*')
    .where({ job_id: jobId })
    .whereIn('state', OPEN_STATES as string[]);
}
