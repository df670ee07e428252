import { rowOf, type Knex } from '@mf/db';

/** The only module that speaks SQL about endpoints. */

export interface EndpointRow {
  api_key_id: number;
  user_id: number;
  url: string;
  secret_ciphertext: string;
  created_at: Date;
  updated_at: Date;
}

export async function findEndpoint(db: Knex, apiKeyId: number): Promise<EndpointRow | undefined> {
  return rowOf<EndpointRow>(db('endpoints').first('*').where({ api_key_id: apiKeyId }));
}

/** Inserts the key's endpoint unless it has one; true when this call created it. */
export async function insertEndpointIfAbsent(
  db: Knex,
  row: Pick<EndpointRow, 'api_key_id' | 'user_id' | 'url' | 'secret_ciphertext'>,
): Promise<boolean> {
  const inserted = await db('endpoints').insert(row).onConflict('api_key_id').ignore().returning('api_key_id');
  return inserted.length > 0;
}

/** Changes the URL of the user's endpoint for this key, keeping its secret; false when there is none. */
export async function updateEndpointUrl(db: Knex, apiKeyId: number, userId: number, url: string): Promise<boolean> {
  return (
    (await db('endpoints').update({ url, updated_at: db.fn.now() }).where({ api_key_id: apiKeyId, user_id: userId })) >
    0
  );
}

export async function deleteEndpoint(db: Knex, apiKeyId: number, userId: number): Promise<boolean> {
  return (await db('endpoints').where({ api_key_id: apiKeyId, user_id: userId }).delete()) > 0;
}
