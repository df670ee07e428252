import { rowsOf, type Knex } from '@mf/db';
import type { OperatorReportGrouping } from '@mf/contracts';

/** A group's key and sums as the database returns them (numeric and bigint sums as text). */
export interface AttemptCostSums {
  key: string | number;
  attempts: number;
  upstream_cost: string | null;
  unpriced_attempts: number;
}

export interface CompletedJobSums {
  key: string | number;
  jobs: number;
  credits_kept: string;
}

/** The grouping column over jobs j and job_attempts a: fixed SQL, never built from input. */
function keyColumn(db: Knex, by: OperatorReportGrouping, provider: 'a.provider' | 'j.provider'): Knex.Raw {
  switch (by) {
    case 'user':
      return db.raw('j.user_id AS key');
    case 'model':
      return db.raw('j.model_id AS key');
    case 'provider':
      return provider === 'a.provider' ? db.raw('a.provider AS key') : db.raw('j.provider AS key');
  }
}

/**
 * Attempts that ended in [from, to), by group: how many, what they cost upstream, and how many
 * succeeded on a non-local provider without a known cost (a route without a price).
 */
export async function attemptCostSums(
  db: Knex,
  range: { from: string; to: string },
  by: OperatorReportGrouping,
): Promise<AttemptCostSums[]> {
  return rowsOf<AttemptCostSums>(
    db('job_attempts as a')
      .join('jobs as j', 'j.id', 'a.job_id')
      .select(keyColumn(db, by, 'a.provider'))
      .select(
        db.raw('COUNT(*)::int AS attempts'),
        db.raw('SUM(a.upstream_cost) AS upstream_cost'),
        db.raw(
          "COUNT(*) FILTER (WHERE a.upstream_cost IS NULL AND a.state = 'succeeded' AND COALESCE(a.provider_type, a.provider) <> 'local')::int AS unpriced_attempts",
        ),
      )
      .where('a.ended_at', '>=', range.from)
      .andWhere('a.ended_at', '<', range.to)
      .groupByRaw('1')
      .orderByRaw('1'),
  );
}

/** Jobs completed in [from, to) (their charges kept), by group: how many and their credits. */
export async function completedJobSums(
  db: Knex,
  range: { from: string; to: string },
  by: OperatorReportGrouping,
): Promise<CompletedJobSums[]> {
  return rowsOf<CompletedJobSums>(
    db('jobs as j')
      .select(keyColumn(db, by, 'j.provider'))
      .select(db.raw('COUNT(*)::int AS jobs'), db.raw('COALESCE(SUM(j.cost), 0)::bigint AS credits_kept'))
      .where('j.status', 'completed')
      .andWhere('j.completed_at', '>=', range.from)
      .andWhere('j.completed_at', '<', range.to)
      .groupByRaw('1')
      .orderByRaw('1'),
  );
}
