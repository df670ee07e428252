import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RenderReply, RenderRequest } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { FfmpegError, probe, ProbeError, runFfmpeg } from '@mf/media';
import { InvalidStorageKeyError } from '@mf/storage';
import { exportError } from '../domain/export-errors';
import { planTimeline } from '../domain/timeline';
import type { ExportContext } from '../usecases/context';
import { stepFailure } from './failures';
import { concatList, finalArgs, type OutputSpec } from './ffmpeg-args';
import { normaliseClips } from './normalise';
import { fetchSources } from './sources';

/** The part of the context the rendering itself needs (no database: the bench runs it alone). */
export type PipelineDeps = Pick<ExportContext, 'storage' | 'cache' | 'slots' | 'settings'>;

export interface PipelineResult {
  reply: RenderReply;
  cacheHits: number;
  cacheMisses: number;
  /** Milliseconds per stage, for the log. */
  stages: Record<'fetch' | 'normalise' | 'mix' | 'upload', number>;
}

/**
 * One export inside its scratch dir: (a) download and probe every source, (b) normalise the video
 * clips to the output spec (cached), (c+d) join them with the concat demuxer, video copied, while
 * building the mixed audio, (e) probe and upload the mp4.
 */
export async function runPipeline(ctx: PipelineDeps, req: RenderRequest, workDir: string, signal: AbortSignal, logger: Logger): Promise<PipelineResult> {
  const { settings } = ctx;
  const spec: OutputSpec = { width: req.width, height: req.height, fit: req.fit, fps: settings.fps };
  const lap = stopwatch();

  const sources = await fetchSources(req.clips, workDir, { storage: ctx.storage, ffprobePath: settings.ffprobePath, stepTimeoutMs: settings.stepTimeoutMs, concurrency: settings.fetchConcurrency, logger }, signal);
  const plan = planTimeline(req.clips, (clip) => sources.get(clip.storage_key)!, settings.fps);
  const fetchMs = lap();

  const clips = await normaliseClips(plan.segments, { ffmpegPath: settings.ffmpegPath, stepTimeoutMs: settings.stepTimeoutMs, cache: ctx.cache, slots: ctx.slots, workDir, spec, logger }, signal);
  const normaliseMs = lap();
  const outFile = path.join(workDir, 'export.mp4');
  try {
    const listFile = path.join(workDir, 'clips.txt');
    await writeFile(listFile, concatList(clips.files), 'utf8');
    await runFfmpeg(finalArgs(plan, listFile, outFile), { ffmpegPath: settings.ffmpegPath, timeoutMs: settings.stepTimeoutMs, signal }).catch((err: unknown) => {
      throw stepFailure(err, 'mix', logger);
    });
  } finally {
    clips.release();
  }
  await ctx.cache.evict().catch((err: unknown) => logger.warn({ err }, 'export cache: eviction failed'));
  const info = await probeOutput(outFile, settings.ffprobePath, settings.stepTimeoutMs, signal, logger);
  const mixMs = lap();

  const stored = await upload(ctx, req.output_key, outFile, logger);
  return {
    reply: {
      output_key: req.output_key,
      duration_sec: Math.round(info.durationSec * 1000) / 1000,
      video_clip_count: plan.segments.length,
      audio_overlay_count: plan.audioClipCount,
      width: req.width,
      height: req.height,
      bytes: stored.size,
    },
    cacheHits: clips.cacheHits,
    cacheMisses: clips.cacheMisses,
    stages: { fetch: fetchMs, normalise: normaliseMs, mix: mixMs, upload: lap() },
  };
}

/** Our own output not probing is our failure (500), not the user's source. */
async function probeOutput(file: string, ffprobePath: string, timeoutMs: number, signal: AbortSignal, logger: Logger) {
  try {
    return await probe(file, { ffprobePath, timeoutMs, signal });
  } catch (err) {
    const cause = err instanceof ProbeError && err.cause instanceof FfmpegError ? err.cause : err;
    if (cause instanceof FfmpegError) throw stepFailure(cause, 'probe output', logger);
    logger.error({ err }, 'export: the rendered file does not probe');
    throw exportError('ffmpeg_failed');
  }
}

/**
 * A failed upload is 503 storage_unconfigured when the storage no longer answers its check (it is
 * unreachable), else 500 export_failed.
 */
async function upload(ctx: PipelineDeps, key: string, file: string, logger: Logger) {
  try {
    return await ctx.storage.putFile(key, file, 'video/mp4');
  } catch (err) {
    logger.warn({ err, key }, 'export: upload failed');
    if (err instanceof InvalidStorageKeyError) throw exportError('export_failed');
    const reachable = await ctx.storage.check().then(
      () => true,
      () => false,
    );
    throw exportError(reachable ? 'export_failed' : 'storage_unconfigured');
  }
}

/** Each call returns the milliseconds since the previous one. */
function stopwatch(): () => number {
  let last = Date.now();
  return () => {
    const now = Date.now();
    const ms = now - last;
    last = now;
    return ms;
  };
}
