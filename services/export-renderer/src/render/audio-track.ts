import path from 'node:path';
import type { TimelineClip } from '@mf/contracts';
import { FfmpegError, runFfmpeg } from '@mf/media';
import type { TimelinePlan } from '../domain/timeline';
import { overlayBusArgs, soundArgs, soundtrackArgs } from './audio-args';
import { mixKey, overlayBusKey, soundKey } from './cache-keys';
import type { CacheEntry } from './clip-cache';
import { stepFailure } from './failures';
import { settleAll } from './limiter';
import type { TrackOptions } from './video-track';

export interface AudioTrack {
  /** The soundtrack, AAC in an m4a, exactly the video's length. */
  file: string;
  /** Whether it came from the cache (or from another export mixing it at the same time). */
  cacheHit: boolean;
  release: () => void;
}

/**
 * The export's soundtrack, made while the pictures are encoded: from the cache when nothing it is
 * made of changed (`mixKey`); else, at the same time, each video clip's own sound as PCM and the
 * overlay bus (voice, sfx, ducked music), both cached, so a re-export redoes only what changed;
 * then one mix of the two and the AAC encode (`soundtrackArgs`).
 */
export async function renderAudioTrack(
  plan: TimelinePlan,
  opts: TrackOptions,
  signal: AbortSignal,
): Promise<AudioTrack> {
  const key = mixKey(plan);
  const hit = await opts.cache.lookup(key, '.m4a');
  if (hit) return { file: hit.path, cacheHit: true, release: hit.release };

  const held: CacheEntry[] = [];
  const release = () => held.forEach((e) => e.release());
  try {
    const sounds: Array<string | null> = plan.segments.map(() => null);
    let bus: string | null = null;
    const parts = [
      ...plan.segments.flatMap((s, i) => (s.hasAudio ? [i] : [])),
      ...(plan.overlays.length > 0 ? (['bus'] as const) : []),
    ];
    await settleAll(parts, opts.soundSlots.size, signal, async (part, _n, partSignal) => {
      if (part === 'bus') bus = await overlayBus(plan, opts, held, partSignal);
      else sounds[part] = await clipSound(plan, part, opts, held, partSignal);
    });

    const file = path.join(opts.workDir, 'soundtrack.m4a');
    const mixed = await opts.cache.obtain(
      key,
      '.m4a',
      file,
      () =>
        opts.soundSlots.use(signal, () =>
          runFfmpeg(soundtrackArgs(plan, sounds, bus, file), {
            ffmpegPath: opts.ffmpegPath,
            timeoutMs: opts.stepTimeoutMs,
            signal,
          }).catch((err: unknown) => {
            throw stepFailure(err, 'soundtrack', opts.logger);
          }),
        ),
      signal,
    );
    held.push(mixed.entry);
    return { file: mixed.entry.path, cacheHit: !mixed.made, release };
  } catch (err) {
    release();
    throw err;
  }
}

/** Segment i's own sound as PCM of its exact length, cached by its source and length. */
async function clipSound(
  plan: TimelinePlan,
  i: number,
  opts: TrackOptions,
  held: CacheEntry[],
  signal: AbortSignal,
): Promise<string> {
  const segment = plan.segments[i];
  const file = path.join(opts.workDir, `sound-${i}.wav`);
  const got = await opts.cache.obtain(
    soundKey(segment, plan.fps),
    '.wav',
    file,
    async () => {
      const input = await opts.sources.localFile(segment.source.key, signal);
      await opts.soundSlots.use(signal, () =>
        runFfmpeg(soundArgs(segment, input, plan.fps, file), {
          ffmpegPath: opts.ffmpegPath,
          timeoutMs: opts.stepTimeoutMs,
          signal,
        }).catch((err: unknown) => {
          throw stepFailure(err, 'sound', opts.logger, segment.clip);
        }),
      );
    },
    signal,
  );
  held.push(got.entry);
  return got.entry.path;
}

/** The voice, sfx and music clips mixed into one float track (`overlayBusArgs`), cached by what they are and where they sit. */
async function overlayBus(
  plan: TimelinePlan,
  opts: TrackOptions,
  held: CacheEntry[],
  signal: AbortSignal,
): Promise<string> {
  const file = path.join(opts.workDir, 'overlays.f32.wav');
  const got = await opts.cache.obtain(
    overlayBusKey(plan),
    '.f32.wav',
    file,
    async () => {
      const inputs = await Promise.all(plan.overlays.map((o) => opts.sources.localFile(o.source.key, signal)));
      const args = overlayBusArgs(plan, inputs, file);
      await opts.soundSlots.use(signal, () =>
        runFfmpeg(args, { ffmpegPath: opts.ffmpegPath, timeoutMs: opts.stepTimeoutMs, signal }).catch(
          (err: unknown) => {
            const clips = plan.overlays.map((o) => o.clip);
            throw stepFailure(err, 'overlays', opts.logger, blamedInput(err, args, clips));
          },
        ),
      );
    },
    signal,
  );
  held.push(got.entry);
  return got.entry.path;
}

/**
 * The user's clip whose file ffmpeg names in its error ("Error while decoding stream #3:0", or the
 * input's path), so a broken voice or music file is reported as that clip (422) rather than as our
 * failure; undefined when it names none of them.
 */
function blamedInput(err: unknown, args: string[], clips: TimelineClip[]): TimelineClip | undefined {
  if (!(err instanceof FfmpegError)) return undefined;
  const stream = /Error while decoding stream #(\d+):/.exec(err.stderrTail);
  if (stream) return clips[Number(stream[1])];
  const inputs = args.flatMap((a, i) => (args[i - 1] === '-i' ? [a] : []));
  const named = inputs.findIndex((input) => err.stderrTail.includes(`${input}:`));
  return named >= 0 ? clips[named] : undefined;
}
