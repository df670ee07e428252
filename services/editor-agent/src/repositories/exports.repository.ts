import { rowsOf, type Knex } from '@mf/db';
import type { ExportFailure } from '@mf/contracts';

export interface ExportRow {
  id: string;
  user_id: string | number;
  project_id: string;
  video_id: string;
  status: 'rendering' | 'completed' | 'failed';
  progress: number;
  asset_id: string | null;
  video_url: string | null;
  duration_sec: number | null;
  error: ExportFailure | null;
  created_at: Date;
  completed_at: Date | null;
}

export async function insertExport(
  db: Knex,
  row: Pick<ExportRow, 'id' | 'user_id' | 'project_id' | 'video_id'>,
): Promise<ExportRow> {
  const [r] = await rowsOf<ExportRow>(
    db('exports')
      .insert({ ...row, status: 'rendering', progress: 0 })
      .returning('*'),
  );
  return r;
}

export async function findExport(db: Knex, projectId: string, exportId: string): Promise<ExportRow | undefined> {
  return db<ExportRow>('exports').where({ id: exportId, project_id: projectId }).first();
}

/** The project's exports, newest first (at most `limit`). */
export async function listExportRows(db: Knex, projectId: string, limit: number): Promise<ExportRow[]> {
  return db<ExportRow>('exports')
    .where({ project_id: projectId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/** A higher percent for a rendering export; undefined when it is no longer rendering or was further. */
export async function raiseProgress(db: Knex, id: string, progress: number): Promise<ExportRow | undefined> {
  const [r] = await rowsOf<ExportRow>(
    db('exports')
      .update({ progress })
      .where({ id, status: 'rendering' })
      .andWhere('progress', '<', progress)
      .returning('*'),
  );
  return r;
}

/** Ends a rendering export (once: undefined when it had already ended). */
export async function settleExport(
  db: Knex,
  id: string,
  end:
    | { status: 'completed'; asset_id: string; video_url: string; duration_sec: number }
    | { status: 'failed'; error: ExportFailure },
): Promise<ExportRow | undefined> {
  const values =
    end.status === 'completed' ? { ...end, progress: 100 } : { status: end.status, error: JSON.stringify(end.error) };
  const [r] = await rowsOf<ExportRow>(
    db('exports')
      .update({ ...values, completed_at: db.fn.now() })
      .where({ id, status: 'rendering' })
      .returning('*'),
  );
  return r;
}

/** Rendering exports started before `before`: ones whose renderer or editor replica is gone. */
export async function listStaleRendering(db: Knex, projectId: string, before: Date): Promise<ExportRow[]> {
  return db<ExportRow>('exports')
    .where({ project_id: projectId, status: 'rendering' })
    .andWhere('created_at', '<', before);
}
