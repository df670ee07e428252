import { rowOf, rowsOf, type Knex } from '@mf/db';

export interface ApiKeyRow {
  id: number;
  user_id: number;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const PUBLIC_COLUMNS = ['id', 'user_id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at'];

export async function insertApiKey(
  db: Knex,
  key: { user_id: number; name: string; prefix: string; key_hash: string; scopes: string[] },
): Promise<ApiKeyRow> {
  const [row] = await rowsOf<ApiKeyRow>(db('api_keys').insert(key).returning(PUBLIC_COLUMNS));
  return row;
}

/** The hot path of every request: one index lookup by hash. */
export async function findActiveKeyByHash(
  db: Knex,
  hash: string,
): Promise<Pick<ApiKeyRow, 'id' | 'user_id' | 'scopes'> | undefined> {
  return rowOf<Pick<ApiKeyRow, 'id' | 'user_id' | 'scopes'>>(
    db('api_keys').first('id', 'user_id', 'scopes').where({ key_hash: hash }).whereNull('revoked_at'),
  );
}

/** Every key of the user, revoked ones included, newest first. */
export async function listKeysOfUser(db: Knex, userId: number): Promise<ApiKeyRow[]> {
  return db('api_keys').select(PUBLIC_COLUMNS).where({ user_id: userId }).orderBy('id', 'desc');
}

export async function findKeyById(db: Knex, id: number): Promise<ApiKeyRow | undefined> {
  return rowOf<ApiKeyRow>(db('api_keys').first(PUBLIC_COLUMNS).where({ id }));
}

export async function revokeKey(db: Knex, id: number): Promise<ApiKeyRow | undefined> {
  const [row] = await rowsOf<ApiKeyRow>(
    db('api_keys')
      .update({ revoked_at: db.raw('COALESCE(revoked_at, now())') })
      .where({ id })
      .returning(PUBLIC_COLUMNS),
  );
  return row;
}

export async function touchKeys(db: Knex, ids: number[], at: Date): Promise<void> {
  if (ids.length) await db('api_keys').update({ last_used_at: at }).whereIn('id', ids);
}
