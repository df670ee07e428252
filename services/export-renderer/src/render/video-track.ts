import path from 'node:path';
import type { Logger } from '@mf/logger';
import { runFfmpeg } from '@mf/media';
import type { VideoSegment } from '../domain/timeline';
import { videoKey } from './cache-keys';
import type { CacheEntry, ClipCache } from './clip-cache';
import { stepFailure } from './failures';
import { videoArgs, type OutputSpec, type Threads } from './ffmpeg-args';
import { settleAll, type Semaphore } from './limiter';
import type { SourceFiles } from './sources';
import type { ProgressMeter } from './progress-meter';
import { copyIfSameFormat, isCopyCandidate } from './stream-copy';

export interface TrackOptions {
  ffmpegPath: string;
  ffprobePath: string;
  stepTimeoutMs: number;
  cache: ClipCache;
  /** The process-wide limit on pictures being made at once. */
  slots: Semaphore;
  /**
   * The process-wide limit on sound steps running at once, apart from the pictures': they are
   * light and short, so they run beside the pictures from the start instead of taking a picture's
   * turn, and the soundtrack is never the last step left with a core idle.
   */
  soundSlots: Semaphore;
  sources: SourceFiles;
  workDir: string;
  spec: OutputSpec;
  logger: Logger;
  /** Counts the pictures' frames as they are made (a background export's progress). */
  progress?: ProgressMeter;
}

export interface VideoTrack {
  /** One picture file per segment, in timeline order, ready for the concat demuxer. */
  files: string[];
  /** Segments whose picture came from the cache (or from another export making it at the same time). */
  cacheHits: number;
  cacheMisses: number;
  /** Pictures copied as they were instead of encoded (already in the output format). */
  copied: number;
  /** Unpins the cache entries; call once the files have been read. */
  release: () => void;
}

/**
 * Brings every video-track clip's picture to the output spec, reusing cached pictures: only clips
 * whose key is new are made, the most expensive first (so the last to finish is a short one), at
 * most the slot count of this export at once, each ffmpeg on one thread (the cheapest way per
 * frame when the cores are all busy anyway) but the last `slots` to start, which get ffmpeg's own
 * thread count: the last one (or a lone re-rendered clip) then uses every core. A clip that appears twice is made once (the repeat counts as a hit).
 */
export async function renderVideoTrack(
  segments: VideoSegment[],
  opts: TrackOptions,
  signal: AbortSignal,
): Promise<VideoTrack> {
  const keys = segments.map((s) => videoKey(s, opts.spec));
  const firstIndexOf = new Map<string, number>();
  keys.forEach((k, i) => firstIndexOf.has(k) || firstIndexOf.set(k, i));
  const unique = [...firstIndexOf.entries()].sort(
    ([, a], [, b]) => cost(segments[b], opts.spec) - cost(segments[a], opts.spec),
  );

  // A picture used twice counts twice: its frames are in the timeline twice.
  const framesOf = new Map<string, number>();
  keys.forEach((k, i) => framesOf.set(k, (framesOf.get(k) ?? 0) + segments[i].frames));
  const progressed = (key: string, share: number) =>
    opts.progress?.set(key, Math.floor(Math.min(1, share) * (framesOf.get(key) ?? 0)));
  const held: CacheEntry[] = [];
  const release = () => held.forEach((e) => e.release());
  let made = 0;
  let copied = 0;
  /** Pictures of this export that got a slot so far, in start order. */
  let started = 0;
  try {
    const fileOf = new Map<string, string>();
    const found = await Promise.all(unique.map(([key]) => opts.cache.lookup(key, '.mov')));
    found.forEach((entry, n) => {
      if (!entry) return;
      held.push(entry);
      fileOf.set(unique[n][0], entry.path);
      progressed(unique[n][0], 1);
    });
    const missing = unique.filter(([key]) => !fileOf.has(key));
    await settleAll(missing, opts.slots.size, signal, async ([key, i], _n, taskSignal) => {
      const segment = segments[i];
      const file = path.join(opts.workDir, `picture-${i}.mov`);
      const make = async () => {
        const input = await opts.sources.localFile(segment.source.key, taskSignal);
        await opts.slots.use(taskSignal, async () => {
          // Each picture runs on one thread, the cheapest per frame while the others keep the cores
          // busy, except with one slot and for the last `slots` to start (a lone one too): when the
          // first of those ends, the other takes the freed core instead of finishing on one thread.
          const tail = missing.length - started++ <= opts.slots.size;
          const threads: Threads = tail || opts.slots.size === 1 ? 'auto' : 1;
          const copy =
            isCopyCandidate(segment, opts.spec) &&
            (await copyIfSameFormat(segment, input, opts.spec, file, opts, taskSignal).catch((err: unknown) => {
              throw stepFailure(err, 'copy', opts.logger, segment.clip);
            }));
          if (copy) {
            copied++;
            return;
          }
          const seconds = segment.frames / opts.spec.fps;
          await runFfmpeg(videoArgs(segment, input, opts.spec, threads, file), {
            ffmpegPath: opts.ffmpegPath,
            timeoutMs: opts.stepTimeoutMs,
            signal: taskSignal,
            ...(opts.progress ? { onProgress: (us: number) => progressed(key, us / 1e6 / seconds) } : {}),
          }).catch((err: unknown) => {
            throw stepFailure(err, 'normalise', opts.logger, segment.clip);
          });
        });
      };
      const got = await opts.cache.obtain(key, '.mov', file, make, taskSignal);
      held.push(got.entry);
      fileOf.set(key, got.entry.path);
      progressed(key, 1);
      if (got.made) made++;
    });
    return {
      files: keys.map((k) => fileOf.get(k)!),
      cacheHits: segments.length - made,
      cacheMisses: made,
      copied,
      release,
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Rough work of making a picture, so the longest start first: every output frame is scaled and
 * encoded, the part the picture covers costs about half as much again to encode as the black
 * bars of a fitted one, and a source pixel decoded costs about a third of an output pixel (x264
 * veryfast; per-clip CPU times of the export bench). A still is decoded once.
 */
function cost(segment: VideoSegment, spec: OutputSpec): number {
  const v = segment.source.probe.video;
  const area = spec.width * spec.height;
  if (segment.still || !v || !(v.width > 0 && v.height > 0)) return segment.frames * area * 1.5;
  const scale =
    spec.fit === 'fit'
      ? Math.min(spec.width / v.width, spec.height / v.height)
      : Math.max(spec.width / v.width, spec.height / v.height);
  const covered = Math.min(area, v.width * scale * v.height * scale);
  const decodedFrames = v.fps > 0 ? (segment.frames * v.fps) / spec.fps : segment.frames;
  return segment.frames * (area + covered / 2) + (decodedFrames * v.width * v.height) / 3;
}
