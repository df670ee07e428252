import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { jobsRpc, type AssetRef, type Asset, type ImportAssetRequest, type Track } from '@mf/contracts';
import { AppError } from '@mf/errors';
import type { ProbeResult } from '@mf/media';
import { newId } from '../domain/ids';
import { assetView, type AssetRow } from '../domain/records';
import * as assets from '../repositories/assets.repository';
import { clipPlacesOfAsset, compactTrack } from '../repositories/clips.repository';
import { touchProject } from '../repositories/projects.repository';
import type { EditorContext } from './context';
import { requireProject } from './projects.usecase';

export const ASSET_NOT_FOUND = 'Asset not found';
const STILL_CODECS = new Set(['png', 'mjpeg', 'webp', 'bmp', 'tiff']);
const EXTENSIONS: Record<string, string> = { image: 'png', video: 'mp4', audio: 'm4a' };
export const TYPE_EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/ogg': 'ogg',
};

/** What the probe says a file is: a still, a video (moving pictures) or audio only. */
export function kindOf(p: ProbeResult): 'image' | 'video' | 'audio' {
  if (p.video && (STILL_CODECS.has(p.video.codec) || p.durationSec === 0)) return 'image';
  if (p.video) return 'video';
  if (p.audio) return 'audio';
  throw AppError.badRequest('the file is not an image, a video or audio');
}

/** Width, height, duration and audio presence: what the timeline and the export need. */
export function mediaMetadata(p: ProbeResult, kind: string): Record<string, unknown> {
  return {
    ...(p.video ? { width: p.video.width, height: p.video.height } : {}),
    duration_sec: kind === 'image' ? null : Math.round(p.durationSec * 1000) / 1000,
    has_audio: Boolean(p.audio),
  };
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mf-editor-'));
  try {
    return await fn(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Copies a local file into the project's storage, probing what export needs into metadata. */
export async function storeAssetFile(
  ctx: EditorContext,
  opts: {
    projectId: string;
    kind: 'image' | 'video' | 'audio';
    source: string;
    file: string;
    contentType: string;
    metadata: Record<string, unknown>;
    /** An id reserved earlier (e.g. the one a charge reference names). */ id?: string;
  },
): Promise<AssetRow> {
  const probed = await ctx.probe(opts.file);
  const id = opts.id ?? newId('ast');
  const ext = TYPE_EXTENSIONS[opts.contentType] ?? EXTENSIONS[opts.kind];
  const key = `editor/${opts.projectId}/${id}.${ext}`;
  await ctx.storage.putFile(key, opts.file, opts.contentType);
  const row = await assets.insertAsset(ctx.db, {
    id,
    project_id: opts.projectId,
    kind: opts.kind,
    source: opts.source,
    storage_key: key,
    metadata: { ...opts.metadata, ...mediaMetadata(probed, opts.kind) },
  });
  await touchProject(ctx.db, opts.projectId);
  return row;
}

/**
 * Records a completed generation job's first output as an asset. The media is copied into the
 * project's own storage: the job's copy expires with the job (retention), the project's does not.
 */
export async function assetFromJob(
  ctx: EditorContext,
  opts: { userId: number; projectId: string; jobId: string; kind: 'image' | 'video'; prompt: string; model: string },
): Promise<AssetRow> {
  const result = await ctx.bus.rpc(jobsRpc, 'getResult', { user_id: opts.userId, job_id: opts.jobId });
  const key = result.result_keys[0];
  if (result.status !== 'completed' || !key)
    throw new AppError('upstream_failed', { error: 'The generation delivered no media' });
  const contentType = opts.kind === 'video' ? 'video/mp4' : 'image/png';
  return withTempDir(async (dir) => {
    const file = path.join(dir, `source.${EXTENSIONS[opts.kind]}`);
    await pipeline(await ctx.storage.get(key), fs.createWriteStream(file));
    return storeAssetFile(ctx, {
      projectId: opts.projectId,
      kind: opts.kind,
      source: 'generated',
      file,
      contentType,
      metadata: { prompt: opts.prompt, model: opts.model, job_id: opts.jobId },
    });
  });
}

/** A downloaded file that passed the checks, ready to be stored. */
export interface FetchedMedia {
  url: string;
  file: string;
  kind: 'image' | 'video' | 'audio';
  contentType: string;
}

/**
 * Downloads an https URL (SSRF-guarded, size-limited) into `dir` as `name` and checks it is media
 * of an accepted kind. Every refusal is a 400, and nothing is stored yet.
 */
async function fetchMedia(
  ctx: EditorContext,
  url: string,
  accept: string[],
  dir: string,
  name: string,
): Promise<FetchedMedia> {
  const file = path.join(dir, name);
  let contentType: string | null;
  try {
    ({ contentType } = await ctx.download(url, file, accept));
  } catch (err) {
    ctx.logger.info({ err: (err as Error).message, url }, 'asset import refused or failed');
    throw AppError.badRequest('url could not be fetched: it must be a public https URL of an image, a video or audio');
  }
  let probed: ProbeResult;
  try {
    probed = await ctx.probe(file);
  } catch {
    throw AppError.badRequest('the file at url is not an image, a video or audio');
  }
  const kind = kindOf(probed);
  const declared = contentType?.split(';')[0].trim();
  const type =
    declared && TYPE_EXTENSIONS[declared]
      ? declared
      : kind === 'image'
        ? 'image/png'
        : kind === 'video'
          ? 'video/mp4'
          : 'audio/mp4';
  return { url, file, kind, contentType: type };
}

function storeFetched(ctx: EditorContext, projectId: string, media: FetchedMedia, source: string): Promise<AssetRow> {
  return storeAssetFile(ctx, {
    projectId,
    kind: media.kind,
    source,
    file: media.file,
    contentType: media.contentType,
    metadata: { source_url: media.url },
  });
}

export async function importAsset(ctx: EditorContext, req: ImportAssetRequest): Promise<{ asset: Asset }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const row = await withTempDir(async (dir) =>
    storeFetched(ctx, p.id, await fetchMedia(ctx, req.url, ['image/', 'video/', 'audio/'], dir, 'download'), 'import'),
  );
  return { asset: assetView(row, ctx.settings.publicBaseUrl) };
}

/** An instruct turn's reference images, fetched and checked but not stored. */
export interface FetchedReferences {
  /** Stores them in the project's library (source "upload"), in the order given. */
  store: (projectId: string) => Promise<AssetRow[]>;
}

/**
 * Fetches and checks every reference image of a turn first, then runs `fn` with them: a URL that
 * is refused fails the turn with a 400 before `fn` runs (before the turn is charged), and leaves
 * nothing in the library. The downloads are deleted when `fn` ends.
 */
export async function withReferenceImages<T>(
  ctx: EditorContext,
  urls: string[],
  fn: (refs: FetchedReferences) => Promise<T>,
): Promise<T> {
  return withTempDir(async (dir) => {
    const fetched: FetchedMedia[] = [];
    for (const [i, url] of urls.entries()) fetched.push(await fetchMedia(ctx, url, ['image/'], dir, `reference-${i}`));
    return fn({
      store: async (projectId) => {
        const rows: AssetRow[] = [];
        for (const media of fetched) rows.push(await storeFetched(ctx, projectId, media, 'upload'));
        return rows;
      },
    });
  });
}

/**
 * Deletes an asset, the clips that used it (their tracks renumbered) and its media, unless another
 * asset still points at the same stored object (exports of an unchanged timeline share one file):
 * then the file stays for it. The check and the file's deletion hold the object's lock, which an
 * export recording a new asset on that file takes too, so neither can slip between the other's
 * check and write.
 */
export async function deleteAsset(
  ctx: EditorContext,
  req: AssetRef,
): Promise<{ deleted: boolean; clips_removed: number }> {
  const p = await requireProject(ctx, req.user_id, req.project_id);
  const asset = await assets.findAsset(ctx.db, p.id, req.asset_id);
  if (!asset) throw AppError.notFound(ASSET_NOT_FOUND);
  const removed = await ctx.db.transaction(async (trx) => {
    const places = await clipPlacesOfAsset(trx, asset.id);
    await assets.deleteAsset(trx, p.id, asset.id);
    for (const key of new Set(places.map((c) => `${c.video_id}|${c.track}`))) {
      const [videoId, track] = key.split('|');
      await compactTrack(trx, videoId, track as Track);
    }
    await touchProject(trx, p.id);
    await assets.lockMediaKey(trx, asset.storage_key);
    if (!(await assets.isMediaKeyUsed(trx, asset.storage_key))) {
      await ctx.storage
        .delete(asset.storage_key)
        .catch((err: Error) =>
          ctx.logger.warn({ err: err.message, key: asset.storage_key }, 'could not delete asset media'),
        );
    }
    return places.length;
  });
  return { deleted: true, clips_removed: removed };
}
