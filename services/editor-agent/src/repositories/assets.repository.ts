import { rowsOf, type Knex } from '@mf/db';
import type { AssetRow } from '../domain/records';

type Db = Knex | Knex.Transaction;

export async function insertAsset(db: Db, row: Omit<AssetRow, 'created_at'>): Promise<AssetRow> {
  // metadata goes in as JSON text (a jsonb column), so the insert is not of the row's own type.
  const [a] = await rowsOf<AssetRow>(
    db('assets')
      .insert({ ...row, metadata: JSON.stringify(row.metadata) })
      .returning('*'),
  );
  return a;
}

export async function listAssets(db: Db, projectId: string): Promise<AssetRow[]> {
  return db<AssetRow>('assets')
    .select('*')
    .where({ project_id: projectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function findAsset(db: Db, projectId: string, assetId: string): Promise<AssetRow | undefined> {
  return db<AssetRow>('assets').first('*').where({ project_id: projectId, id: assetId });
}

export async function deleteAsset(db: Db, projectId: string, assetId: string): Promise<boolean> {
  return (await db<AssetRow>('assets').where({ project_id: projectId, id: assetId }).delete()) > 0;
}

/**
 * Serialises, per stored object, deleting an asset's media and recording a new asset on the same
 * object (an export answered with a stored result shares its file): held to the end of `trx`.
 */
export async function lockMediaKey(trx: Knex.Transaction, storageKey: string): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('media:' || ?::text))`, [storageKey]);
}

/** Whether any asset (of any project) still points at this stored object. */
export async function isMediaKeyUsed(db: Db, storageKey: string): Promise<boolean> {
  return (await db<AssetRow>('assets').first('id').where({ storage_key: storageKey })) !== undefined;
}
