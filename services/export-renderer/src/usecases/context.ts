import path from 'node:path';
import type { Knex } from '@mf/db';
import type { Logger } from '@mf/logger';
import { resolveFfmpeg, resolveFfprobe } from '@mf/media';
import type { Storage } from '@mf/storage';
import type { ExportRendererConfig } from '../config';
import { ClipCache } from '../render/clip-cache';
import { Semaphore } from '../render/limiter';

export interface ExportSettings {
  ffmpegPath: string;
  ffprobePath: string;
  exportTimeoutMs: number;
  stepTimeoutMs: number;
  rateLimit: number;
  /** Root of the per-export scratch dirs. */
  workDir: string;
  fps: number;
  /** Downloads and probes of one export at once. */
  fetchConcurrency: number;
}

/** Everything the export use case needs, passed in (tests build it with a local storage and a fresh DB). */
export interface ExportContext {
  db: Knex;
  storage: Storage;
  logger: Logger;
  cache: ClipCache;
  /** Normalisations running at once, shared by all exports of the process. */
  slots: Semaphore;
  settings: ExportSettings;
}

export function createExportContext(config: ExportRendererConfig, deps: { db: Knex; storage: Storage; logger: Logger }): ExportContext {
  return {
    ...deps,
    cache: new ClipCache(path.resolve(config.EXPORT_CACHE_DIR), config.EXPORT_CACHE_MAX_BYTES, deps.logger),
    slots: new Semaphore(config.EXPORT_CONCURRENCY),
    settings: {
      ffmpegPath: resolveFfmpeg(config),
      ffprobePath: resolveFfprobe(config),
      exportTimeoutMs: config.EXPORT_TIMEOUT_MS,
      stepTimeoutMs: config.FFMPEG_STEP_TIMEOUT_MS,
      rateLimit: config.EXPORT_RATE_LIMIT,
      workDir: path.resolve(config.EXPORT_WORK_DIR),
      fps: config.EXPORT_FPS,
      // Downloads wait on the network more than on the CPU: a few more than the cores.
      fetchConcurrency: Math.max(4, config.EXPORT_CONCURRENCY),
    },
  };
}
