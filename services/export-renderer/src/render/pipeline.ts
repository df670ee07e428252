import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RenderReply, RenderRequest, TimelineClip } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { FfmpegError, probe, ProbeError, runFfmpeg } from '@mf/media';
import { InvalidStorageKeyError, type StoredObject } from '@mf/storage';
import { exportError } from '../domain/export-errors';
import { planTimeline, planVideoSegments, videoClipsOf, type TimelinePlan } from '../domain/timeline';
import type { ExportContext } from '../usecases/context';
import { renderAudioTrack, type AudioTrack } from './audio-track';
import { stepFailure } from './failures';
import { concatList, joinArgs, type OutputSpec } from './ffmpeg-args';
import { settleAll } from './limiter';
import { ProgressMeter } from './progress-meter';
import { SourceFiles, statSources, type SourceOptions, type SourceStats } from './sources';
import { renderVideoTrack, type TrackOptions, type VideoTrack } from './video-track';

/** The part of the context the rendering itself needs (no database: the bench can run it alone). */
export type PipelineDeps = Pick<ExportContext, 'storage' | 'cache' | 'slots' | 'soundSlots' | 'probes' | 'settings'>;

export interface PipelineResult {
  reply: RenderReply;
  /** The stored mp4's ETag (the content-addressed result records it). */
  etag: string;
  /** Video clips whose picture came from the cache, and those made now. */
  cacheHits: number;
  cacheMisses: number;
  /** Pictures copied instead of encoded (already in the output format). */
  copied: number;
  /** Whether the soundtrack came from the cache. */
  soundtrackHit: boolean;
  /** Milliseconds per stage, for the log. */
  stages: Record<'fetch' | 'render' | 'join' | 'upload', number>;
}

/** Where a background export's progress goes (progress-meter.ts: percentReporter). */
export interface RenderProgressReport {
  pictures: (fraction: number) => void;
  joined: () => void;
}

export function sourceOptions(ctx: PipelineDeps, logger: Logger): SourceOptions {
  const { settings } = ctx;
  return {
    storage: ctx.storage,
    ffprobePath: settings.ffprobePath,
    stepTimeoutMs: settings.stepTimeoutMs,
    concurrency: settings.fetchConcurrency,
    probes: ctx.probes,
    logger,
  };
}

/**
 * One export inside its scratch dir: (a) probe the video clips' sources (stats given by the caller,
 * or made here; only sources not probed before are downloaded), (b) the pictures normalised to the
 * output spec and, at the same time, the other sources probed and the soundtrack mixed and encoded
 * (both cached by content), (c) one remux joins them without decoding anything, (d) probe and upload the mp4.
 */
export async function runPipeline(
  ctx: PipelineDeps,
  req: RenderRequest,
  workDir: string,
  signal: AbortSignal,
  logger: Logger,
  stats?: SourceStats,
  progress?: RenderProgressReport,
): Promise<PipelineResult> {
  const { settings } = ctx;
  const spec: OutputSpec = { width: req.width, height: req.height, fit: req.fit, fps: settings.fps };
  const lap = stopwatch();

  const sourceOpts = sourceOptions(ctx, logger);
  const sources = new SourceFiles(stats ?? (await statSources(req.clips, sourceOpts, signal)), workDir, sourceOpts);
  const sourceOf = (clip: TimelineClip) => sources.get(clip.storage_key);
  const pictureKeys = new Set(videoClipsOf(req.clips).map((c) => c.storage_key));
  const isPicture = (key: string) => pictureKeys.has(key);
  await sources.probeAll(signal, isPicture);
  const segments = planVideoSegments(req.clips, sourceOf, settings.fps);
  const fetchMs = lap();

  const trackOpts: TrackOptions = {
    ffmpegPath: settings.ffmpegPath,
    ffprobePath: settings.ffprobePath,
    stepTimeoutMs: settings.stepTimeoutMs,
    cache: ctx.cache,
    slots: ctx.slots,
    soundSlots: ctx.soundSlots,
    sources,
    workDir,
    spec,
    logger,
    ...(progress
      ? {
          progress: new ProgressMeter(
            segments.reduce((n, s) => n + s.frames, 0),
            progress.pictures,
          ),
        }
      : {}),
  };
  let video: VideoTrack | undefined;
  let audio: AudioTrack | undefined;
  let plan: TimelinePlan | undefined;
  const outFile = path.join(workDir, 'export.mp4');
  let renderMs: number;
  try {
    // Both tracks at once; the first failure stops the other, and both have settled when this returns.
    await settleAll(['video', 'audio'] as const, 2, signal, async (track, _i, trackSignal) => {
      if (track === 'video') video = await renderVideoTrack(segments, trackOpts, trackSignal);
      else {
        // The sound-only sources are probed while the first pictures are made.
        await sources.probeAll(trackSignal, (key) => !isPicture(key));
        plan = planTimeline(req.clips, sourceOf, settings.fps);
        audio = await renderAudioTrack(plan, trackOpts, trackSignal);
      }
    });
    renderMs = lap();
    const listFile = path.join(workDir, 'pictures.txt');
    await writeFile(listFile, concatList(video!.files), 'utf8');
    await runFfmpeg(joinArgs(listFile, audio!.file, outFile), {
      ffmpegPath: settings.ffmpegPath,
      timeoutMs: settings.stepTimeoutMs,
      signal,
    }).catch((err: unknown) => {
      throw stepFailure(err, 'join', logger);
    });
    progress?.joined();
  } finally {
    video?.release();
    audio?.release();
  }
  await ctx.cache.evict().catch((err: unknown) => logger.warn({ err }, 'export cache: eviction failed'));
  // Probed before it is stored (about 0.07 s): a file the join left broken must never become an
  // export, nor the content-addressed result a later unchanged export is answered from.
  const info = await probeOutput(outFile, settings.ffprobePath, settings.stepTimeoutMs, signal, logger);
  const joinMs = lap();

  const stored = await upload(ctx, req.output_key, outFile, logger);
  return {
    reply: {
      output_key: req.output_key,
      duration_sec: Math.round(info.durationSec * 1000) / 1000,
      video_clip_count: segments.length,
      audio_overlay_count: plan!.audioClipCount,
      width: req.width,
      height: req.height,
      bytes: stored.size,
    },
    etag: stored.etag,
    cacheHits: video!.cacheHits,
    cacheMisses: video!.cacheMisses,
    copied: video!.copied,
    soundtrackHit: audio!.cacheHit,
    stages: { fetch: fetchMs, render: renderMs, join: joinMs, upload: lap() },
  };
}

/**
 * A failed upload is 503 storage_unconfigured when the storage no longer answers its check (it is
 * unreachable), else 500 export_failed.
 */
async function upload(ctx: PipelineDeps, key: string, file: string, logger: Logger): Promise<StoredObject> {
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
