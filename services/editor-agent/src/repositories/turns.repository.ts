import type { Knex } from '@mf/db';
import type { AgentEvent } from '@mf/contracts';

type Db = Knex | Knex.Transaction;

export interface TurnRow {
  id: string;
  video_id: string;
  user_id: number;
  instruction: string;
  image_urls: string[];
  status: 'running' | 'done' | 'failed';
  assistant_text: string | null;
  messages: unknown[];
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export async function insertTurn(
  db: Db,
  row: Pick<TurnRow, 'id' | 'video_id' | 'user_id' | 'instruction' | 'image_urls'>,
): Promise<void> {
  await db('turns').insert({ ...row, image_urls: JSON.stringify(row.image_urls), status: 'running' });
}

export async function finishTurn(
  db: Db,
  id: string,
  changes: { status: 'done' | 'failed'; assistant_text?: string | null; messages?: unknown[]; error?: string | null },
): Promise<void> {
  await db('turns')
    .update({
      ...changes,
      messages: changes.messages === undefined ? undefined : JSON.stringify(changes.messages),
      finished_at: db.fn.now(),
    })
    .where({ id });
}

/** The video's chat thread, oldest first (finished turns only). */
export async function threadOf(db: Db, videoId: string, limit = 50): Promise<TurnRow[]> {
  const rows = await db<TurnRow>('turns')
    .select('*')
    .where({ video_id: videoId, status: 'done' })
    .orderBy('created_at', 'desc')
    .limit(limit);
  return rows.reverse();
}

export async function insertEvents(db: Db, turnId: string, events: AgentEvent[]): Promise<void> {
  if (events.length)
    await db('agent_events').insert(
      events.map((event, seq) => ({ turn_id: turnId, seq, event: JSON.stringify(event) })),
    );
}

/**
 * The latest `perVideo` turns of each of these videos, any status, oldest first within a video:
 * the dashboard's view of the chat threads (the agent's own context uses `threadOf`).
 */
export async function recentTurnsOfVideos(db: Db, videoIds: string[], perVideo: number): Promise<TurnRow[]> {
  if (!videoIds.length) return [];
  const ranked = db('turns')
    .select('id', 'video_id', 'instruction', 'assistant_text', 'status', 'created_at')
    .select(db.raw('row_number() OVER (PARTITION BY video_id ORDER BY created_at DESC, id DESC) AS n'))
    .whereIn('video_id', videoIds)
    .as('ranked');
  return db
    .from(ranked)
    .select('id', 'video_id', 'instruction', 'assistant_text', 'status', 'created_at')
    .where('n', '<=', perVideo)
    .orderBy([{ column: 'video_id' }, { column: 'created_at' }, { column: 'id' }]);
}
