import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { TimelineClip } from '@mf/contracts';
import { isAppError } from '@mf/errors';
import type { Logger } from '@mf/logger';
import { FfmpegError, probe, ProbeError } from '@mf/media';
import type { Storage } from '@mf/storage';
import { clipLabel, exportError } from '../domain/export-errors';
import type { Source } from '../domain/timeline';
import { AbortedError, settleAll } from './limiter';

export interface FetchOptions {
  storage: Storage;
  ffprobePath: string;
  stepTimeoutMs: number;
  /** Downloads and probes at once. */
  concurrency: number;
  logger: Logger;
}

/**
 * Downloads every distinct source object into `dir` (in parallel) and probes it, so that a missing
 * object (502 source_fetch_failed) or an unreadable one (422 corrupt_source) fails the export
 * before any rendering starts. Keyed by storage key: a source used by several clips comes once.
 */
export async function fetchSources(clips: TimelineClip[], dir: string, opts: FetchOptions, signal: AbortSignal): Promise<Map<string, Source>> {
  const firstClipOf = new Map<string, TimelineClip>();
  for (const clip of clips) if (!firstClipOf.has(clip.storage_key)) firstClipOf.set(clip.storage_key, clip);
  const keys = [...firstClipOf.keys()];

  const sources = await settleAll(keys, opts.concurrency, signal, async (key, i, taskSignal) => {
    const clip = firstClipOf.get(key)!;
    // Numbered names: nothing of the storage key reaches a path or an ffmpeg argument.
    const file = path.join(dir, `source-${i}`);
    const etag = await download(opts.storage, key, file, taskSignal, opts.logger, clip);
    return { path: file, etag, probe: await probeSource(file, opts, taskSignal, clip) } satisfies Source;
  });
  return new Map(keys.map((key, i) => [key, sources[i]]));
}

async function download(storage: Storage, key: string, file: string, signal: AbortSignal, logger: Logger, clip: TimelineClip): Promise<string> {
  const unavailable = (err: unknown) => {
    logger.warn({ err, key, track: clip.track, idx: clip.idx }, 'export: source not fetched from storage');
    return exportError('source_fetch_failed', `${clipLabel(clip)} could not be fetched from storage. Try again shortly.`);
  };
  let etag: string;
  try {
    const info = await storage.stat(key);
    if (!info) throw unavailable(new Error('no such object'));
    etag = info.etag;
    if (signal.aborted) throw new AbortedError();
    await pipeline(await storage.get(key), createWriteStream(file), { signal });
  } catch (err) {
    if (signal.aborted) throw new AbortedError();
    if (isAppError(err)) throw err;
    throw unavailable(err);
  }
  return etag;
}

async function probeSource(file: string, opts: FetchOptions, signal: AbortSignal, clip: TimelineClip) {
  try {
    return await probe(file, { ffprobePath: opts.ffprobePath, timeoutMs: opts.stepTimeoutMs, signal });
  } catch (err) {
    // A probe that was stopped or could not run says nothing about the file: keep its real cause.
    if (err instanceof ProbeError && err.cause instanceof FfmpegError) {
      if (err.cause.kind === 'aborted') throw new AbortedError();
      if (err.cause.kind !== 'failed') throw err.cause;
    }
    if (!(err instanceof ProbeError)) throw err;
    opts.logger.warn({ err: err.message, stderrTail: err.stderrTail, track: clip.track, idx: clip.idx }, 'export: source not readable by ffprobe');
    throw exportError('corrupt_source', `${clipLabel(clip)} could not be decoded. Replace or remove it and export again.`);
  }
}
