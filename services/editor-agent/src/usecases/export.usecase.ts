import {
  exportsRpc,
  type ExportReply,
  type ExportRequest,
  type RenderReply,
  type RenderRequest,
  type TimelineClip,
} from '@mf/contracts';
import { AppError, type ErrorKind } from '@mf/errors';
import { BusUnavailableError, RpcTimeoutError } from '@mf/bus';
import { EXPORT_SIZES } from '../domain/export-sizes';
import { newId } from '../domain/ids';
import { assetView, type AssetRow } from '../domain/records';
import { insertAsset, listAssets, lockMediaKey } from '../repositories/assets.repository';
import { listClips } from '../repositories/clips.repository';
import { touchProject } from '../repositories/projects.repository';
import type { EditorContext } from './context';
import { requireProject, resolveVideo } from './projects.usecase';

const exportError = (kind: ErrorKind, error: string, message: string): AppError =>
  new AppError(kind, { error, message });

/**
 * Exports one video of a project as an mp4: resolves its timeline (clips with their media), asks
 * export-renderer to render it at the project's size, and records the result as an `export`
 * asset of the project (a new asset per export, even when an unchanged timeline is answered with
 * an earlier export's file). Errors are the contract's export errors, passed through from the renderer.
 */
export async function exportVideo(ctx: EditorContext, req: ExportRequest): Promise<ExportReply> {
  return renderAndRecord(ctx, await prepareExport(ctx, req));
}

/** An export checked and resolved, ready to render: what the renderer gets and the asset it becomes. */
export interface PreparedExport {
  projectId: string;
  videoId: string;
  fit: ExportRequest['fit'];
  assetId: string;
  request: RenderRequest;
}

/**
 * The checks an export answers at once (404 project or video, 400 no_video_clips) and its resolved
 * timeline.
 */
export async function prepareExport(ctx: EditorContext, req: ExportRequest): Promise<PreparedExport> {
  const project = await requireProject(ctx, req.user_id, req.project_id);
  const video = await resolveVideo(ctx, project, req.video_id);
  const [clips, assets] = await Promise.all([listClips(ctx.db, project.id, video.id), listAssets(ctx.db, project.id)]);
  const byId = new Map(assets.map((a) => [a.id, a]));
  const timeline: TimelineClip[] = clips.map((c) => {
    const a = byId.get(c.asset_id)!;
    return {
      track: c.track,
      idx: c.idx,
      storage_key: a.storage_key,
      kind: a.kind,
      duration_sec: c.duration_sec,
      start_sec: c.start_sec,
      volume: c.volume,
    };
  });
  if (!timeline.some((c) => c.track === 'video')) {
    throw exportError(
      'invalid',
      'no_video_clips',
      'The timeline has no video clips. Add at least one video or image clip, then export again.',
    );
  }
  const size = EXPORT_SIZES[video.aspect_ratio];
  const assetId = newId('ast');
  const outputKey = `editor/${project.id}/exports/${assetId}.mp4`;
  const request = {
    user_id: req.user_id,
    project_id: project.id,
    video_id: video.id,
    width: size.width,
    height: size.height,
    fit: req.fit,
    clips: timeline,
    output_key: outputKey,
  };
  return { projectId: project.id, videoId: video.id, fit: req.fit, assetId, request };
}

/** Renders a prepared export and records its asset; the contract's export errors otherwise. */
export async function renderAndRecord(ctx: EditorContext, prepared: PreparedExport): Promise<ExportReply> {
  const { projectId, videoId, fit, assetId, request } = prepared;
  // A timeline exported before comes back with that export's file (rendered.output_key): the new
  // asset points at it. Should that file be deleted with its last other asset in the meantime, the
  // renderer notices on the second ask and renders anew.
  for (let attempt = 1; ; attempt++) {
    const rendered = await render(ctx, request);
    const row = await insertExportAsset(ctx, {
      id: assetId,
      project_id: projectId,
      kind: 'export',
      source: 'export',
      storage_key: rendered.output_key,
      metadata: {
        video_id: videoId,
        fit,
        width: rendered.width,
        height: rendered.height,
        duration_sec: rendered.duration_sec,
        has_audio: true,
        video_clip_count: rendered.video_clip_count,
        audio_overlay_count: rendered.audio_overlay_count,
      },
    });
    if (!row) {
      if (attempt < 2) continue;
      ctx.logger.error({ key: rendered.output_key }, 'export: the rendered file is missing from storage');
      throw exportError('internal', 'export_failed', 'The export failed unexpectedly. Please try again.');
    }
    await touchProject(ctx.db, projectId);
    return {
      asset_id: row.id,
      video_url: assetView(row, ctx.settings.publicBaseUrl).url,
      duration_sec: rendered.duration_sec,
      video_clip_count: rendered.video_clip_count,
      audio_overlay_count: rendered.audio_overlay_count,
    };
  }
}

async function render(ctx: EditorContext, request: RenderRequest): Promise<RenderReply> {
  try {
    return await ctx.bus.rpc(exportsRpc, 'render', request, { timeoutMs: ctx.settings.exportTimeoutMs ?? 660_000 });
  } catch (err) {
    if (err instanceof RpcTimeoutError)
      throw exportError(
        'timed_out',
        'export_timeout',
        'The export took too long. Split the project into shorter videos and export them one by one.',
      );
    if (err instanceof BusUnavailableError)
      throw exportError(
        'unavailable',
        'export_unavailable',
        'Exporting is temporarily unavailable. Try again in a moment.',
      );
    throw err;
  }
}

/**
 * Records the export asset, under the lock an asset deletion takes on the same stored object, once
 * the file is confirmed present; null when it is gone (a shared file whose last other asset was
 * deleted just now).
 */
async function insertExportAsset(ctx: EditorContext, row: Omit<AssetRow, 'created_at'>): Promise<AssetRow | null> {
  return ctx.db.transaction(async (trx) => {
    await lockMediaKey(trx, row.storage_key);
    if (!(await ctx.storage.stat(row.storage_key))) return null;
    return insertAsset(trx, row);
  });
}
