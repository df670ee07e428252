import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { TimelineClip } from '@mf/contracts';
import { isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { FfmpegError, probe, ProbeError, type ProbeResult } from '@mf/media';
import type { Storage } from '@mf/storage';
import { clipLabel, exportError } from '../domain/export-errors';
import type { Source } from '../domain/timeline';
import { AbortedError, settleAll } from './limiter';
import type { ProbeCache } from './probe-cache';

export interface SourceOptions {
  storage: Storage;
  ffprobePath: string;
  stepTimeoutMs: number;
  /** Stats, downloads and probes at once. */
  concurrency: number;
  probes: ProbeCache;
  logger: Logger;
}

/** A source object's ETag (from `stat`), per storage key, with the first clip that uses it (for messages). */
export type SourceStats = Map<string, { etag: string; clip: TimelineClip }>;

/**
 * Stats every distinct source object, several at once: enough to compute the render key, before
 * any download. A missing or unreadable object fails now with 502 source_fetch_failed naming the
 * first clip that uses it.
 */
export async function statSources(
  clips: TimelineClip[],
  opts: SourceOptions,
  signal: AbortSignal,
): Promise<SourceStats> {
  const firstClipOf = new Map<string, TimelineClip>();
  for (const clip of clips) if (!firstClipOf.has(clip.storage_key)) firstClipOf.set(clip.storage_key, clip);
  const keys = [...firstClipOf.keys()];
  const etags = await settleAll(keys, opts.concurrency, signal, async (key) => {
    const clip = firstClipOf.get(key)!;
    const info = await opts.storage.stat(key).catch((err: unknown) => {
      throw unavailable(opts.logger, clip, err);
    });
    if (!info) throw unavailable(opts.logger, clip, new Error('no such object'));
    return info.etag;
  });
  return new Map(keys.map((key, i) => [key, { etag: etags[i], clip: firstClipOf.get(key)! }]));
}

/**
 * The export's view of its sources: what ffprobe says about each (from the probe cache when the
 * content was probed before, else downloaded and probed now) and local copies, downloaded into the
 * scratch dir only when a step reads the file. A cache hit needs no download at all.
 */
export class SourceFiles {
  private readonly downloads = new Map<string, Promise<string>>();
  private fileCount = 0;
  private readonly sources = new Map<string, Source>();

  constructor(
    private readonly stats: SourceStats,
    private readonly dir: string,
    private readonly opts: SourceOptions,
  ) {}

  /**
   * Probes every source (of those `only` picks) not probed before (downloading it), several at
   * once, so that an unreadable file (422 corrupt_source) or a failed download (502) fails the
   * export before the steps that read it.
   */
  async probeAll(signal: AbortSignal, only: (key: string) => boolean = () => true): Promise<void> {
    const keys = [...this.stats.keys()].filter(only);
    await settleAll(keys, this.opts.concurrency, signal, async (key) => {
      const { etag, clip } = this.stats.get(key)!;
      let result = this.opts.probes.get(etag);
      if (!result) {
        result = await this.probeFile(await this.localFile(key, signal), clip, signal);
        this.opts.probes.set(etag, result);
      }
      this.sources.set(key, { key, etag, probe: result });
    });
  }

  /** A probed source (after probeAll). */
  get(key: string): Source {
    const source = this.sources.get(key);
    if (!source) throw new Error(`source ${key} not probed`);
    return source;
  }

  /** The local copy of a source, downloaded once (numbered names: nothing of the key reaches a path or an ffmpeg argument). */
  localFile(key: string, signal: AbortSignal): Promise<string> {
    let file = this.downloads.get(key);
    if (!file) {
      const target = path.join(this.dir, `source-${this.fileCount++}`);
      file = this.download(key, target, signal).then(() => target);
      // A download stopped by one caller's signal must not poison the others: forget failures.
      file.catch(() => this.downloads.delete(key));
      this.downloads.set(key, file);
    }
    return file;
  }

  private async download(key: string, file: string, signal: AbortSignal): Promise<void> {
    const { clip } = this.stats.get(key)!;
    try {
      if (signal.aborted) throw new AbortedError();
      await pipeline(await this.opts.storage.get(key), createWriteStream(file), { signal });
    } catch (err) {
      if (signal.aborted) throw new AbortedError();
      if (isAppError(err)) throw err;
      throw unavailable(this.opts.logger, clip, err);
    }
  }

  private async probeFile(file: string, clip: TimelineClip, signal: AbortSignal): Promise<ProbeResult> {
    try {
      return await probe(file, { ffprobePath: this.opts.ffprobePath, timeoutMs: this.opts.stepTimeoutMs, signal });
    } catch (err) {
      // A probe that was stopped or could not run says nothing about the file: keep its real cause.
      if (err instanceof ProbeError && err.cause instanceof FfmpegError) {
        if (err.cause.kind === 'aborted') throw new AbortedError();
        if (err.cause.kind !== 'failed') throw err.cause;
      }
      if (!(err instanceof ProbeError)) throw err;
      this.opts.logger.warn(
        { err: err.message, stderrTail: err.stderrTail, track: clip.track, idx: clip.idx },
        'export: source not readable by ffprobe',
      );
      throw exportError(
        'corrupt_source',
        `${clipLabel(clip)} could not be decoded. Replace or remove it and export again.`,
      );
    }
  }
}

function unavailable(logger: Logger, clip: TimelineClip, err: unknown) {
  logger.warn(
    { err, key: clip.storage_key, track: clip.track, idx: clip.idx },
    'export: source not fetched from storage',
  );
  return exportError('source_fetch_failed', `${clipLabel(clip)} could not be fetched from storage. Try again shortly.`);
}
