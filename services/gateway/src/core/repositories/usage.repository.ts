import type { Knex } from '@mf/db';

export interface UsageRecord {
  api_key_id: number;
  user_id: number;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  created_at: Date;
}

/**
 * Writes the rows in one statement whatever their number: one JSON parameter, unpacked by
 * Postgres (no per-row placeholders to build, no chunks, the same SQL text every time).
 */
export async function insertUsage(db: Knex, rows: UsageRecord[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `INSERT INTO usage (api_key_id, user_id, method, path, status, duration_ms, request_id, created_at)
     SELECT api_key_id, user_id, method, path, status, duration_ms, request_id, created_at
     FROM json_to_recordset(?::json) AS r(api_key_id bigint, user_id bigint, method text, path text,
       status smallint, duration_ms integer, request_id text, created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}
