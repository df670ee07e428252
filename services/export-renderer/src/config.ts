import os from 'node:os';
import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';
import { storageEnv, type StorageEnv } from '@mf/storage';

export interface ExportRendererConfig extends ServiceEnv, StorageEnv {
  EXPORT_TIMEOUT_MS: number;
  FFMPEG_STEP_TIMEOUT_MS: number;
  EXPORT_RATE_LIMIT: number;
  EXPORT_CONCURRENCY: number;
  EXPORT_CACHE_DIR: string;
  EXPORT_CACHE_MAX_BYTES: number;
  EXPORT_WORK_DIR: string;
  EXPORT_FPS: number;
  FFMPEG_PATH?: string;
  FFPROBE_PATH?: string;
}

/** Frame rates whose frame holds a whole number of 48 kHz samples, so audio and video cut on the same instant. */
export const EXPORT_FPS_VALUES = [24, 25, 30, 48, 50, 60] as const;

export const exportRendererConfigSchema = Joi.object<ExportRendererConfig>({
  ...serviceEnv(8084),
  ...storageEnv,
  /** Longest one whole export may take (download, render, upload), ms; past it: 504 export_timeout. */
  EXPORT_TIMEOUT_MS: Joi.number().integer().min(1).max(2_147_483_647).default(600_000),
  /** Longest one ffmpeg or ffprobe process may run, ms; past it: 504 ffmpeg_timeout. */
  FFMPEG_STEP_TIMEOUT_MS: Joi.number().integer().min(1).max(2_147_483_647).default(300_000),
  /** Exports one user may start per rolling minute; more: 429 rate_limited. */
  EXPORT_RATE_LIMIT: Joi.number().integer().min(1).default(5),
  /** Clip normalisations running at once in this process (all exports share them). */
  EXPORT_CONCURRENCY: Joi.number().integer().min(1).max(64).default(Math.max(1, os.cpus().length)),
  /** Normalised-clip cache directory (one process's own; relative to the working directory unless absolute). */
  EXPORT_CACHE_DIR: Joi.string().min(1).default('.data/export-cache'),
  /** Cache size above which the least recently used clips are deleted, bytes (5 GiB). */
  EXPORT_CACHE_MAX_BYTES: Joi.number()
    .integer()
    .min(0)
    .default(5 * 1024 ** 3),
  /** Root of the per-export scratch directories (each removed when its export ends). */
  EXPORT_WORK_DIR: Joi.string().min(1).default(os.tmpdir()),
  /** Output frame rate of every export. */
  EXPORT_FPS: Joi.number()
    .valid(...EXPORT_FPS_VALUES)
    .default(30),
  /** ffmpeg binary (else ffmpeg-static if installed, else ffmpeg on PATH). */
  FFMPEG_PATH: Joi.string().optional(),
  /** ffprobe binary (else a packaged ffprobe if installed, else ffprobe on PATH). */
  FFPROBE_PATH: Joi.string().optional(),
});

export function loadExportRendererConfig(env: NodeJS.ProcessEnv = process.env): ExportRendererConfig {
  return loadConfig(exportRendererConfigSchema, env);
}
