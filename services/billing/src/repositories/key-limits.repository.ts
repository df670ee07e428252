import { rowsOf, type Knex } from '@mf/db';

/** Key limits and counters outside a batch: setting limits, reading them for display. */

export interface KeyLimitsRow {
  api_key_id: number;
  user_id: number;
  spend_limit: number | null;
  max_concurrent_jobs: number | null;
  /** spent of the current month: 0 when the row's counters are of an earlier month. */
  spent_this_period: number;
  active: number;
}

const COLUMNS = ['api_key_id', 'user_id', 'spend_limit', 'max_concurrent_jobs', 'active'] as const;

const spentThisPeriod = (db: Knex) =>
  db.raw(
    "CASE WHEN period_start = date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN spent ELSE 0 END AS spent_this_period",
  );

const parse = (r: KeyLimitsRow): KeyLimitsRow => ({
  api_key_id: Number(r.api_key_id),
  user_id: Number(r.user_id),
  spend_limit: r.spend_limit === null ? null : Number(r.spend_limit),
  max_concurrent_jobs: r.max_concurrent_jobs === null ? null : Number(r.max_concurrent_jobs),
  spent_this_period: Number(r.spent_this_period),
  active: Number(r.active),
});

/**
 * Sets both limits of a key (the row's lock orders it with the batches charging the key). Returns
 * undefined when the key is known to belong to another user.
 */
export async function upsertLimits(
  db: Knex,
  row: { api_key_id: number; user_id: number; spend_limit: number | null; max_concurrent_jobs: number | null },
): Promise<KeyLimitsRow | undefined> {
  const rows = await rowsOf<KeyLimitsRow>(
    db('key_limits')
      .insert(row)
      .onConflict('api_key_id')
      .merge({ spend_limit: row.spend_limit, max_concurrent_jobs: row.max_concurrent_jobs, updated_at: db.fn.now() })
      .where('key_limits.user_id', row.user_id)
      .returning([...COLUMNS, spentThisPeriod(db)]),
  );
  return rows[0] && parse(rows[0]);
}

export async function findLimits(db: Knex, userId: number, apiKeyIds: number[]): Promise<KeyLimitsRow[]> {
  if (apiKeyIds.length === 0) return [];
  const rows = await rowsOf<KeyLimitsRow>(
    db('key_limits')
      .select([...COLUMNS, spentThisPeriod(db)])
      .where({ user_id: userId })
      .whereIn('api_key_id', apiKeyIds),
  );
  return rows.map(parse);
}
