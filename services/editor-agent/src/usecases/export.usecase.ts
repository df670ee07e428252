import { exportsRpc, type ExportReply, type ExportRequest, type TimelineClip } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { BusUnavailableError, RpcTimeoutError } from '@mf/bus';
import { EXPORT_SIZES } from '../domain/export-sizes';
import { newId } from '../domain/ids';
import { assetView } from '../domain/records';
import { insertAsset, listAssets } from '../repositories/assets.repository';
import { listClips } from '../repositories/clips.repository';
import { touchProject } from '../repositories/projects.repository';
import type { EditorContext } from './context';
import { requireProject, resolveVideo } from './projects.usecase';

const exportError = (status: number, error: string, message: string): AppError => new AppError(status, { error, message });

/**
 * Exports one video of a project as an mp4: resolves its timeline (clips with their media), asks
 * export-renderer to render it at the project's size, and records the result as an `export`
 * asset of the project. Errors are the contract's export errors, passed through from the renderer.
 */
export async function exportVideo(ctx: EditorContext, req: ExportRequest): Promise<ExportReply> {
  const project = await requireProject(ctx, req.user_id, req.project_id);
  const video = await resolveVideo(ctx, project, req.video_id);
  const [clips, assets] = await Promise.all([listClips(ctx.db, project.id, video.id), listAssets(ctx.db, project.id)]);
  const byId = new Map(assets.map((a) => [a.id, a]));
  const timeline: TimelineClip[] = clips.map((c) => {
    const a = byId.get(c.asset_id)!;
    return { track: c.track, idx: c.idx, storage_key: a.storage_key, kind: a.kind, duration_sec: c.duration_sec, start_sec: c.start_sec, volume: c.volume };
  });
  if (!timeline.some((c) => c.track === 'video')) {
    throw exportError(400, 'no_video_clips', 'The timeline has no video clips. Add at least one video or image clip, then export again.');
  }
  const size = EXPORT_SIZES[video.aspect_ratio];
  const assetId = newId('ast');
  const outputKey = `editor/${project.id}/exports/${assetId}.mp4`;
  let rendered;
  try {
    rendered = await ctx.bus.rpc(exportsRpc, 'render', { user_id: req.user_id, project_id: project.id, video_id: video.id, width: size.width, height: size.height, fit: req.fit, clips: timeline, output_key: outputKey }, { timeoutMs: ctx.settings.exportTimeoutMs ?? 660_000 });
  } catch (err) {
    if (err instanceof RpcTimeoutError) throw exportError(504, 'export_timeout', 'The export took too long. Split the project into shorter videos and export them one by one.');
    if (err instanceof BusUnavailableError) throw exportError(503, 'export_unavailable', 'Exporting is temporarily unavailable. Try again in a moment.');
    throw err;
  }
  const row = await insertAsset(ctx.db, {
    id: assetId,
    project_id: project.id,
    kind: 'export',
    source: 'export',
    storage_key: rendered.output_key,
    metadata: {
      video_id: video.id,
      fit: req.fit,
      width: rendered.width,
      height: rendered.height,
      duration_sec: rendered.duration_sec,
      has_audio: true,
      video_clip_count: rendered.video_clip_count,
      audio_overlay_count: rendered.audio_overlay_count,
    },
  });
  await touchProject(ctx.db, project.id);
  return {
    asset_id: row.id,
    video_url: assetView(row, ctx.settings.publicBaseUrl).url,
    duration_sec: rendered.duration_sec,
    video_clip_count: rendered.video_clip_count,
    audio_overlay_count: rendered.audio_overlay_count,
  };
}
