import { rowsOf, type Knex } from '@mf/db';
import type { UsageGrouping } from '@mf/contracts';
import { withUsage } from './ledger.repository';

/** One group's sums, as the database returns them (bigint sums as text). */
export interface UsageSums {
  day?: string;
  model?: string;
  api_key_id?: number | string | null;
  jobs: number | string;
  credits_charged: number | string;
  credits_refunded: number | string;
}

/** The column of each grouping: fixed SQL, never built from input. */
function groupColumn(db: Knex, g: UsageGrouping): Knex.Raw {
  switch (g) {
    case 'day':
      return db.raw("to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day");
    case 'model':
      return db.raw('model AS model');
    case 'key':
      return db.raw('api_key_id AS api_key_id');
  }
}

/**
 * The user's charges and refunds made in [from, to), summed per group. Each movement counts on the
 * day it was made (a refund on its own day, whatever its charge's), under its charge's model and
 * key; so the sums over any range are exactly what the balance moved by in it, grants apart.
 * Zero refunds (references closed without a charge) move nothing and are left out.
 */
export async function usageSums(
  db: Knex,
  userId: number,
  range: { from: string; to: string },
  groupBy: readonly UsageGrouping[],
): Promise<UsageSums[]> {
  const moves = withUsage(db)
    .select('e.kind', 'e.amount', 'e.created_at')
    .where('e.user_id', userId)
    .whereIn('e.kind', ['charge', 'refund'])
    .andWhere('e.amount', '>', 0)
    .andWhere('e.created_at', '>=', range.from)
    .andWhere('e.created_at', '<', range.to);
  const groups = groupBy.map((g) => groupColumn(db, g));
  const q = db
    .with('moves', moves)
    .from('moves')
    .select(groups)
    .select(
      db.raw("COUNT(*) FILTER (WHERE kind = 'charge')::int AS jobs"),
      db.raw("COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0)::bigint AS credits_charged"),
      db.raw("COALESCE(SUM(amount) FILTER (WHERE kind = 'refund'), 0)::bigint AS credits_refunded"),
    );
  if (groups.length) {
    const positions = groups.map((_, i) => i + 1).join(', ');
    q.groupByRaw(positions).orderByRaw(groups.map((_, i) => `${i + 1} NULLS FIRST`).join(', '));
  }
  return rowsOf<UsageSums>(q);
}
