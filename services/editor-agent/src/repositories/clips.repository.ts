import { rowOf, rowsOf, type Knex } from '@mf/db';
import type { Track } from '@mf/contracts';
import type { ClipRow } from '../domain/records';

type Db = Knex | Knex.Transaction;

const COLUMNS = ['id', 'video_id', 'track', 'idx', 'asset_id', 'duration_sec', 'start_sec', 'volume', 'created_at'];

/** Clips of a video (or of every video of a project), by track then position. */
export async function listClips(db: Db, projectId: string, videoId?: string): Promise<ClipRow[]> {
  const q = db('clips')
    .select(COLUMNS.map((c) => `clips.${c}`))
    .join('videos', 'videos.id', 'clips.video_id')
    .where('videos.project_id', projectId)
    .orderBy([
      { column: 'videos.created_at' },
      { column: 'clips.video_id' },
      { column: 'clips.track' },
      { column: 'clips.idx' },
    ]);
  if (videoId) q.andWhere('clips.video_id', videoId);
  return q;
}

export async function clipsOfTrack(db: Db, videoId: string, track: Track): Promise<ClipRow[]> {
  return db('clips').select(COLUMNS).where({ video_id: videoId, track }).orderBy('idx');
}

export async function findClip(db: Db, projectId: string, clipId: string): Promise<ClipRow | undefined> {
  return rowOf<ClipRow>(
    db('clips')
      .first(COLUMNS.map((c) => `clips.${c}`))
      .join('videos', 'videos.id', 'clips.video_id')
      .where({ 'videos.project_id': projectId, 'clips.id': clipId }),
  );
}

/** Where an asset is used: the video and track of each clip that plays it (one entry per clip). */
export async function clipPlacesOfAsset(db: Db, assetId: string): Promise<{ video_id: string; track: Track }[]> {
  return db('clips').select('video_id', 'track').where({ asset_id: assetId });
}

/** Shifts clips at or after idx one place right, making room for an insert. */
export async function openGap(db: Db, videoId: string, track: Track, idx: number): Promise<void> {
  await db('clips')
    .update({ idx: db.raw('idx + 1') })
    .where({ video_id: videoId, track })
    .andWhere('idx', '>=', idx);
}

/** Renumbers a track 0..n-1 in its current order (after a removal or a move). */
export async function compactTrack(db: Db, videoId: string, track: Track): Promise<void> {
  await db.raw(
    `UPDATE clips c SET idx = r.n FROM (
       SELECT id, (row_number() OVER (ORDER BY idx, created_at, id) - 1) AS n FROM clips WHERE video_id = ? AND track = ?
     ) r WHERE c.id = r.id AND c.idx <> r.n`,
    [videoId, track],
  );
}

export async function insertClip(db: Db, row: Omit<ClipRow, 'created_at'>): Promise<ClipRow> {
  const [c] = await rowsOf<ClipRow>(db('clips').insert(row).returning(COLUMNS));
  return c;
}

export async function setClipIdx(db: Db, clipId: string, idx: number): Promise<void> {
  await db('clips').update({ idx }).where({ id: clipId });
}

export async function deleteClip(db: Db, clipId: string): Promise<boolean> {
  return (await db('clips').where({ id: clipId }).delete()) > 0;
}
