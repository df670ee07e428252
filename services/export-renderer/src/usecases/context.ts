import path from 'node:path';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { resolveFfmpeg, resolveFfprobe } from '@mf/media';
import type { Storage } from '@mf/storage';
import type { ExportRendererConfig } from '../config';
import { ClipCache } from '../render/clip-cache';
import { Semaphore } from '../render/limiter';
import { ProbeCache } from '../render/probe-cache';
import { RenderFlights } from './render-flights';

export interface ExportSettings {
  ffmpegPath: string;
  ffprobePath: string;
  exportTimeoutMs: number;
  stepTimeoutMs: number;
  rateLimit: number;
  /** Root of the per-export scratch dirs. */
  workDir: string;
  fps: number;
  /** Stats, downloads and probes of one export at once. */
  fetchConcurrency: number;
}

/** Everything the export use case needs, passed in (tests build it with a local storage and a fresh DB). */
export interface ExportContext {
  db: Knex;
  storage: Storage;
  logger: Logger;
  /** Pictures, sounds and soundtracks by content address. */
  cache: ClipCache;
  /** What ffprobe said about each content (by ETag). */
  probes: ProbeCache;
  /** Renders running now, by user and render key: an identical export waits for the first and reuses its file. */
  renders: RenderFlights;
  /** Pictures being made at once, shared by all exports of the process. */
  slots: Semaphore;
  /** Sound steps (clip sounds, overlay bus, soundtrack) running at once beside them, shared likewise. */
  soundSlots: Semaphore;
  settings: ExportSettings;
}

export function createExportContext(
  config: ExportRendererConfig,
  deps: { db: Knex; storage: Storage; logger: Logger },
): ExportContext {
  return {
    ...deps,
    cache: new ClipCache(path.resolve(config.EXPORT_CACHE_DIR), config.EXPORT_CACHE_MAX_BYTES, deps.logger),
    probes: new ProbeCache(),
    renders: new RenderFlights(),
    slots: new Semaphore(config.EXPORT_CONCURRENCY),
    soundSlots: new Semaphore(config.EXPORT_CONCURRENCY),
    settings: {
      ffmpegPath: resolveFfmpeg(config),
      ffprobePath: resolveFfprobe(config),
      exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
      stepTimeoutMs: config.FFMPEG_STEP_TIMEOUT_MS,
      rateLimit: config.EXPORT_RATE_LIMIT,
      workDir: path.resolve(config.EXPORT_WORK_DIR),
      fps: config.EXPORT_FPS,
      // Stats, downloads and probes wait on storage and process start-up more than on the CPU.
      fetchConcurrency: Math.max(8, config.EXPORT_CONCURRENCY),
    },
  };
}
