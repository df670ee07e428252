import path from 'node:path';
import type { Logger } from '@mf/logger';
import { runFfmpeg } from '@mf/media';
import type { VideoSegment } from '../domain/timeline';
import { clipCacheKey, type CacheEntry, type ClipCache } from './clip-cache';
import { stepFailure } from './failures';
import { normaliseArgs, type OutputSpec } from './ffmpeg-args';
import { settleAll, type Semaphore } from './limiter';

export interface NormaliseOptions {
  ffmpegPath: string;
  stepTimeoutMs: number;
  cache: ClipCache;
  /** The process-wide limit on normalisations running at once. */
  slots: Semaphore;
  workDir: string;
  spec: OutputSpec;
  logger: Logger;
}

export interface NormalisedClips {
  /** One file per segment, in timeline order, ready for the concat demuxer. */
  files: string[];
  cacheHits: number;
  cacheMisses: number;
  /** Unpins the cache entries; call once the files have been read. */
  release: () => void;
}

/**
 * Brings every video-track clip to the output spec, reusing cached clips: only clips whose cache
 * key is new are rendered, in parallel up to the shared slot limit. A clip that appears twice is
 * rendered once (the repeat counts as a hit).
 */
export async function normaliseClips(segments: VideoSegment[], opts: NormaliseOptions, signal: AbortSignal): Promise<NormalisedClips> {
  const keys = segments.map((s) => clipCacheKey(s, opts.spec));
  const firstIndexOf = new Map<string, number>();
  keys.forEach((k, i) => firstIndexOf.has(k) || firstIndexOf.set(k, i));
  const unique = [...firstIndexOf.entries()];

  const held: CacheEntry[] = [];
  const release = () => held.forEach((e) => e.release());
  let misses = 0;
  try {
    const entries = await settleAll(unique, unique.length, signal, async ([key, i], _n, taskSignal) => {
      const hit = await opts.cache.lookup(key);
      if (hit) {
        held.push(hit);
        return hit;
      }
      misses++;
      const file = path.join(opts.workDir, `clip-${i}.mov`);
      const segment = segments[i];
      await opts.slots.use(taskSignal, async () => {
        try {
          await runFfmpeg(normaliseArgs(segment, opts.spec, file), { ffmpegPath: opts.ffmpegPath, timeoutMs: opts.stepTimeoutMs, signal: taskSignal });
        } catch (err) {
          throw stepFailure(err, 'normalise', opts.logger, segment.clip);
        }
      });
      const entry = await opts.cache.store(key, file).catch((err: unknown) => {
        // A cache that cannot be written only costs speed: the export goes on with the clip where it is.
        opts.logger.warn({ err }, 'export cache: clip not stored');
        return { path: file, release: () => undefined };
      });
      held.push(entry);
      return entry;
    });
    const fileOf = new Map(unique.map(([key], n) => [key, entries[n].path]));
    return { files: keys.map((k) => fileOf.get(k)!), cacheHits: segments.length - misses, cacheMisses: misses, release };
  } catch (err) {
    release();
    throw err;
  }
}
