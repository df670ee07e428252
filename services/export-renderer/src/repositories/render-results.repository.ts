import { rowOf, type Knex } from '@mf/db';

/** A finished export, by its content address. */
export interface RenderResult {
  user_id: number;
  render_key: string;
  output_key: string;
  output_etag: string;
  bytes: number;
  duration_sec: number;
}

export async function findRenderResult(db: Knex, userId: number, renderKey: string): Promise<RenderResult | undefined> {
  const row = await rowOf<RenderResult>(
    db('render_results')
      .first('user_id', 'render_key', 'output_key', 'output_etag', 'bytes', 'duration_sec')
      .where({ user_id: userId, render_key: renderKey }),
  );
  // bigint columns arrive as strings.
  return row ? { ...row, user_id: Number(row.user_id), bytes: Number(row.bytes) } : undefined;
}

/** Records a finished export; a newer one replaces the row (its file replaced a stale one). */
export async function saveRenderResult(db: Knex, result: RenderResult): Promise<void> {
  await db('render_results').insert(result).onConflict(['user_id', 'render_key']).merge({
    output_key: result.output_key,
    output_etag: result.output_etag,
    bytes: result.bytes,
    duration_sec: result.duration_sec,
    created_at: db.fn.now(),
    last_used_at: db.fn.now(),
  });
}

export async function touchRenderResult(db: Knex, userId: number, renderKey: string): Promise<void> {
  await db('render_results').where({ user_id: userId, render_key: renderKey }).update({ last_used_at: db.fn.now() });
}

/** Forgets a result whose file is gone or was replaced (only that row: a newer one is kept). */
export async function dropRenderResult(
  db: Knex,
  result: Pick<RenderResult, 'user_id' | 'render_key' | 'output_key' | 'output_etag'>,
): Promise<void> {
  await db('render_results')
    .where({
      user_id: result.user_id,
      render_key: result.render_key,
      output_key: result.output_key,
      output_etag: result.output_etag,
    })
    .delete();
}
