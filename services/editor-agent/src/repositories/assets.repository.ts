import type { Knex } from '@mf/db';
import type { AssetRow } from '../domain/records';

type Db = Knex | Knex.Transaction;

export async function insertAsset(db: Db, row: Omit<AssetRow, 'created_at'>): Promise<AssetRow> {
  const [a] = await db('assets').insert({ ...row, metadata: JSON.stringify(row.metadata) }).returning('*');
  return a;
}

export async function listAssets(db: Db, projectId: string): Promise<AssetRow[]> {
  return db('assets').select('*').where({ project_id: projectId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function findAsset(db: Db, projectId: string, assetId: string): Promise<AssetRow | undefined> {
  return db('assets').first('*').where({ project_id: projectId, id: assetId });
}

export async function deleteAsset(db: Db, projectId: string, assetId: string): Promise<boolean> {
  return (await db('assets').where({ project_id: projectId, id: assetId }).delete()) > 0;
}
