import { rowsOf, type Knex } from '@mf/db';
import { withUsage } from './ledger.repository';

/** One group's sums over every user, as the database returns them (bigint sums as text). */
export interface OperatorUsageSums {
  user_id?: number | string;
  model?: string;
  jobs: number | string;
  credits_charged: number | string;
  credits_refunded: number | string;
}

/**
 * Every user's charges and refunds made in [from, to), summed by user or by model: the same
 * movements, on the same days, as each user's own usage report (usage.repository.ts).
 */
export async function operatorUsageSums(
  db: Knex,
  range: { from: string; to: string },
  by: 'user' | 'model',
): Promise<OperatorUsageSums[]> {
  const moves = withUsage(db)
    .select('e.user_id', 'e.kind', 'e.amount')
    .whereIn('e.kind', ['charge', 'refund'])
    .andWhere('e.amount', '>', 0)
    .andWhere('e.created_at', '>=', range.from)
    .andWhere('e.created_at', '<', range.to);
  const group = by === 'user' ? db.raw('user_id AS user_id') : db.raw('model AS model');
  return rowsOf<OperatorUsageSums>(
    db
      .with('moves', moves)
      .from('moves')
      .select(group)
      .select(
        db.raw("COUNT(*) FILTER (WHERE kind = 'charge')::int AS jobs"),
        db.raw("COALESCE(SUM(amount) FILTER (WHERE kind = 'charge'), 0)::bigint AS credits_charged"),
        db.raw("COALESCE(SUM(amount) FILTER (WHERE kind = 'refund'), 0)::bigint AS credits_refunded"),
      )
      .groupByRaw('1')
      .orderByRaw('1'),
  );
}
