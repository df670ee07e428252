import {
  EXPORT_ERROR_CODES,
  jobsRpc,
  type ExportAccepted,
  type ExportEventType,
  type ExportFailure,
  type ExportList,
  type ExportRef,
  type ExportRequest,
  type ExportStatus,
  type ProjectRef,
} from '@mf/contracts';
import { AppError, isAppError } from '@mf/errors';
import { newId } from '../domain/ids';
import {
  findExport,
  insertExport,
  listExportRows,
  listStaleRendering,
  raiseProgress,
  settleExport,
  type ExportRow,
} from '../repositories/exports.repository';
import type { EditorContext } from './context';
import { prepareExport, renderAndRecord } from './export.usecase';
import { requireProject } from './projects.usecase';

export const EXPORT_NOT_FOUND = 'Export not found';
/** Exports a project lists (newest first). */
const LISTED = 20;
/** The background exports this process is rendering (ended failed if it stops first). */
const running = new Map<string, EventChain>();
const INTERRUPTED: ExportFailure = {
  error: 'export_failed',
  message: 'The export was interrupted. Please try again.',
};

/** Past the render's own limit by this much, a rendering export is taken as lost (its replica died). */
const LOST_AFTER_MS = 60_000;

/**
 * POST .../export with `Prefer: respond-async`: the checks the blocking export answers at once (404,
 * 400 no_video_clips) happen now; the render runs after the answer, on this replica, and the
 * export's progress and end go to its row and to the user's event log (export.progress,
 * export.completed, export.failed). A render refused or failed ends the export `failed` with the
 * error body the blocking call would have answered; exports cost no credits either way.
 */
export async function startExport(ctx: EditorContext, req: ExportRequest): Promise<ExportAccepted> {
  const prepared = await prepareExport(ctx, req);
  const row = await insertExport(ctx.db, {
    id: newId('exp'),
    user_id: req.user_id,
    project_id: prepared.projectId,
    video_id: prepared.videoId,
  });
  const events = new EventChain(ctx, row.id);
  running.set(row.id, events);
  const stopListening = ctx.renderProgress?.listen(row.id, (progress) => {
    void events.next(async () => {
      const raised = await raiseProgress(ctx.db, row.id, Math.min(99, progress));
      if (raised) await recordEvent(ctx, 'export.progress', raised);
    });
  });
  const run = async () => {
    try {
      const reply = await renderAndRecord(ctx, { ...prepared, request: { ...prepared.request, export_id: row.id } });
      await events.next(async () => {
        const done = await settleExport(ctx.db, row.id, {
          status: 'completed',
          asset_id: reply.asset_id,
          video_url: reply.video_url,
          duration_sec: reply.duration_sec,
        });
        if (done) await recordEvent(ctx, 'export.completed', done);
      });
    } catch (err) {
      if (!isAppError(err)) ctx.logger.error({ err, exportId: row.id }, 'background export failed unexpectedly');
      await events.next(() => fail(ctx, row.id, failureOf(err)));
    } finally {
      stopListening?.();
      running.delete(row.id);
    }
  };
  void run();
  return { export_id: row.id, status: 'rendering', progress: 0 };
}

/**
 * At shutdown: the exports this process renders end failed now (their render's answer would reach
 * no one), rather than reading `rendering` until they are taken as lost.
 */
export async function failRunningExports(ctx: EditorContext): Promise<number> {
  const chains = [...running];
  await Promise.all(chains.map(([id, events]) => events.next(() => fail(ctx, id, INTERRUPTED))));
  return chains.length;
}

/** GET .../exports/:exportId: the export as it is now (404 for another user's project or export). */
export async function getExport(ctx: EditorContext, req: ExportRef): Promise<ExportStatus> {
  const project = await requireProject(ctx, req.user_id, req.project_id);
  await failLost(ctx, project.id);
  const row = await findExport(ctx.db, project.id, req.export_id);
  if (!row) throw AppError.notFound(EXPORT_NOT_FOUND);
  return exportView(row);
}

/** The project's background exports, newest first. */
export async function listExports(ctx: EditorContext, req: ProjectRef): Promise<ExportList> {
  const project = await requireProject(ctx, req.user_id, req.project_id);
  await failLost(ctx, project.id);
  return { exports: (await listExportRows(ctx.db, project.id, LISTED)).map(exportView) };
}

export function exportView(r: ExportRow): ExportStatus {
  return {
    export_id: r.id,
    project_id: r.project_id,
    video_id: r.video_id,
    status: r.status,
    progress: r.progress,
    asset_id: r.asset_id,
    video_url: r.video_url,
    duration_sec: r.duration_sec,
    error: r.error,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at ? r.completed_at.toISOString() : null,
  };
}

/** The blocking export's error body of a failure (an unexpected one: export_failed). */
function failureOf(err: unknown): ExportFailure {
  const code = isAppError(err) ? err.body.error : undefined;
  const message = isAppError(err) ? err.body.message : undefined;
  if (isAppError(err) && typeof message === 'string' && (EXPORT_ERROR_CODES as readonly string[]).includes(code!))
    return { error: code as ExportFailure['error'], message };
  return { error: 'export_failed', message: 'The export failed unexpectedly. Please try again.' };
}

async function fail(ctx: EditorContext, exportId: string, failure: ExportFailure): Promise<void> {
  const failed = await settleExport(ctx.db, exportId, { status: 'failed', error: failure });
  if (failed) await recordEvent(ctx, 'export.failed', failed);
}

/**
 * Exports still rendering long past the render's limit lost their replica (a crash, a deploy): they
 * end failed, as the blocking call would have for its caller.
 */
async function failLost(ctx: EditorContext, projectId: string): Promise<void> {
  const limit = (ctx.settings.exportTimeoutMs ?? 660_000) + LOST_AFTER_MS;
  for (const row of await listStaleRendering(ctx.db, projectId, new Date(Date.now() - limit)))
    await fail(ctx, row.id, INTERRUPTED);
}

/** Writes the event in the user's log. Best effort: the export's row stays the truth. */
async function recordEvent(ctx: EditorContext, type: ExportEventType, row: ExportRow): Promise<void> {
  const view = exportView(row);
  try {
    await ctx.bus.rpc(jobsRpc, 'appendExportEvent', {
      type,
      payload: { user_id: Number(row.user_id), project_id: row.project_id, export_id: row.id, export: view },
    });
  } catch (err) {
    ctx.logger.warn({ err, exportId: row.id, type }, 'export event not recorded');
  }
}

/** One export's writes in order, so its log never shows a progress after its end. */
class EventChain {
  private tail: Promise<void> = Promise.resolve();
  constructor(
    private readonly ctx: EditorContext,
    private readonly exportId: string,
  ) {}

  next(step: () => Promise<void>): Promise<void> {
    this.tail = this.tail
      .then(step)
      .catch((err: unknown) => this.ctx.logger.warn({ err, exportId: this.exportId }, 'background export step failed'));
    return this.tail;
  }
}
