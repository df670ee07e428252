import type { AddClipRequest, ClipRef, Clip, MoveClipRequest, Track } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { newId } from '../domain/ids';
import { clipView, type AssetRow } from '../domain/records';
import { findAsset } from '../repositories/assets.repository';
import * as clips from '../repositories/clips.repository';
import { lockVideoRow, touchProject } from '../repositories/projects.repository';
import { ASSET_NOT_FOUND } from './assets.usecase';
import type { EditorContext } from './context';
import { requireProject, resolveVideo } from './projects.usecase';

export const CLIP_NOT_FOUND = 'Clip not found';

/** Which asset kinds a track plays: pictures on the video track, sound on the audio tracks. */
const TRACK_KINDS: Record<Track, readonly AssetRow['kind'][]> = {
  video: ['image', 'video', 'export'],
  voice: ['audio', 'video'],
  sfx: ['audio', 'video'],
  music: ['audio', 'video'],
};

/**
 * Places an asset on a track at idx (appended when absent or past the end); clips at or after
 * idx move one place right.
 */
export async function addClip(ctx: EditorContext, req: AddClipRequest): Promise<{ clip: Clip }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const video = await resolveVideo(ctx, p, req.video_id);
  const asset = await findAsset(ctx.db, p.id, req.asset_id);
  if (!asset) throw AppError.notFound(ASSET_NOT_FOUND);
  if (!TRACK_KINDS[req.track].includes(asset.kind))
    throw AppError.badRequest(`an asset of kind ${asset.kind} cannot go on the ${req.track} track`);
  const clip = await ctx.db.transaction(async (trx) => {
    await lockVideoRow(trx, video.id);
    const count = (await clips.clipsOfTrack(trx, video.id, req.track)).length;
    const idx = Math.min(req.idx ?? count, count);
    await clips.openGap(trx, video.id, req.track, idx);
    const row = await clips.insertClip(trx, {
      id: newId('clp'),
      video_id: video.id,
      track: req.track,
      idx,
      asset_id: asset.id,
      duration_sec: req.duration_sec ?? null,
      start_sec: req.start_sec ?? null,
      volume: req.volume ?? 1,
    });
    await touchProject(trx, p.id);
    return row;
  });
  return { clip: clipView(clip) };
}

/** Moves a clip to idx within its track (clamped to the track's end); the others close up. */
export async function moveClip(ctx: EditorContext, req: MoveClipRequest): Promise<{ clip: Clip }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const found = await clips.findClip(ctx.db, p.id, req.clip_id);
  if (!found) throw AppError.notFound(CLIP_NOT_FOUND);
  const moved = await ctx.db.transaction(async (trx) => {
    await lockVideoRow(trx, found.video_id);
    const order = (await clips.clipsOfTrack(trx, found.video_id, found.track)).filter((c) => c.id !== found.id);
    const idx = Math.min(req.idx, order.length);
    order.splice(idx, 0, found);
    for (const [i, c] of order.entries()) if (c.idx !== i || c.id === found.id) await clips.setClipIdx(trx, c.id, i);
    await touchProject(trx, p.id);
    return { ...found, idx };
  });
  return { clip: clipView(moved) };
}

/** Removes a clip; its track is renumbered 0..n-1. The asset stays in the library. */
export async function removeClip(ctx: EditorContext, req: ClipRef): Promise<{ removed: boolean }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const found = await clips.findClip(ctx.db, p.id, req.clip_id);
  if (!found) throw AppError.notFound(CLIP_NOT_FOUND);
  await ctx.db.transaction(async (trx) => {
    await lockVideoRow(trx, found.video_id);
    await clips.deleteClip(trx, found.id);
    await clips.compactTrack(trx, found.video_id, found.track);
    await touchProject(trx, p.id);
  });
  return { removed: true };
}
