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

export async function insertUsage(db: Knex, rows: UsageRecord[]): Promise<void> {
  if (rows.length) await db.batchInsert('usage', rows, 500);
}

export async function listUsage(db: Knex, apiKeyId: number, limit: number): Promise<UsageRecord[]> {
  return db('usage').select('*').where({ api_key_id: apiKeyId }).orderBy('id', 'desc').limit(limit);
}
