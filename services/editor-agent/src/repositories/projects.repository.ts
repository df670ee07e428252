import type { Knex } from '@mf/db';
import type { ProjectRow, VideoRow } from '../domain/records';

type Db = Knex | Knex.Transaction;

export async function insertProject(
  db: Db,
  row: Omit<ProjectRow, 'created_at' | 'updated_at' | 'context_md'>,
): Promise<ProjectRow> {
  const [p] = await db<ProjectRow>('projects').insert(row).returning('*');
  return p;
}

/** A project of this user; another user's project is as absent as a missing one. */
export async function findOwnedProject(
  db: Db,
  userId: number,
  projectId: string,
  forUpdate = false,
): Promise<ProjectRow | undefined> {
  const q = db<ProjectRow>('projects').first('*').where({ id: projectId, user_id: userId });
  return forUpdate ? q.forUpdate() : q;
}

/** Newest activity first (updated_at), then id for a stable order. */
export async function listProjects(db: Db, userId: number): Promise<ProjectRow[]> {
  return db<ProjectRow>('projects')
    .select('*')
    .where({ user_id: userId })
    .orderBy([
      { column: 'updated_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ]);
}

export async function updateProject(
  db: Db,
  projectId: string,
  changes: Partial<Pick<ProjectRow, 'name' | 'aspect_ratio' | 'context_md'>>,
): Promise<ProjectRow> {
  const [p] = await db<ProjectRow>('projects')
    .update({ ...changes, updated_at: db.fn.now() })
    .where({ id: projectId })
    .returning('*');
  return p;
}

/** Marks the project as changed (its timeline, library or videos). */
export async function touchProject(db: Db, projectId: string): Promise<void> {
  await db<ProjectRow>('projects').update({ updated_at: db.fn.now() }).where({ id: projectId });
}

export async function insertVideo(db: Db, row: Omit<VideoRow, 'created_at'>): Promise<VideoRow> {
  const [v] = await db<VideoRow>('videos')
    .insert(row)
    .returning(['id', 'project_id', 'name', 'aspect_ratio', 'is_default', 'created_at']);
  return v;
}

export async function listVideos(db: Db, projectId: string): Promise<VideoRow[]> {
  return db<VideoRow>('videos')
    .select('id', 'project_id', 'name', 'aspect_ratio', 'is_default', 'created_at')
    .where({ project_id: projectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function findVideo(db: Db, projectId: string, videoId: string): Promise<VideoRow | undefined> {
  return db<VideoRow>('videos')
    .first('id', 'project_id', 'name', 'aspect_ratio', 'is_default', 'created_at')
    .where({ project_id: projectId, id: videoId });
}

export async function findDefaultVideo(db: Db, projectId: string): Promise<VideoRow | undefined> {
  return db<VideoRow>('videos')
    .first('id', 'project_id', 'name', 'aspect_ratio', 'is_default', 'created_at')
    .where({ project_id: projectId, is_default: true });
}

export async function updateVideo(
  db: Db,
  videoId: string,
  changes: Partial<Pick<VideoRow, 'name' | 'aspect_ratio'>>,
): Promise<VideoRow> {
  const [v] = await db<VideoRow>('videos')
    .update(changes)
    .where({ id: videoId })
    .returning(['id', 'project_id', 'name', 'aspect_ratio', 'is_default', 'created_at']);
  return v;
}

/** Holds the video's row lock until `trx` ends: serialises edits of its timeline (positions are renumbered in place). */
export async function lockVideoRow(trx: Knex.Transaction, videoId: string): Promise<void> {
  await trx('videos').select('id').where({ id: videoId }).forUpdate();
}

/**
 * Takes the video's turn lock unless another live turn holds it. The lock expires (lease), so a
 * turn whose process died does not block the video forever.
 */
export async function tryLockVideo(db: Db, videoId: string, turnId: string, leaseMs: number): Promise<boolean> {
  const n = await db('videos')
    .update({ turn_lock: turnId, turn_lock_until: db.raw(`now() + (? * interval '1 millisecond')`, [leaseMs]) })
    .where({ id: videoId })
    .andWhereRaw('(turn_lock is null or turn_lock_until < now())');
  return n > 0;
}

export async function unlockVideo(db: Db, videoId: string, turnId: string): Promise<void> {
  await db('videos').update({ turn_lock: null, turn_lock_until: null }).where({ id: videoId, turn_lock: turnId });
}
