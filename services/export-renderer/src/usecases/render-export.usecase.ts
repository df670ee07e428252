import type { RenderReply, RenderRequest } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { exportError, exportErrorCode } from '../domain/export-errors';
import { videoClipsOf } from '../domain/timeline';
import { toExportError } from '../render/failures';
import { percentReporter } from '../render/progress-meter';
import { failRun, finishRun, startRun } from '../repositories/runs.repository';
import type { ExportContext } from './context';
import { exportByContent } from './reuse-result';

export interface RenderOptions {
  logger?: Logger;
  /** When the caller stops waiting (epoch ms): the export gets no longer than that. */
  deadline?: number;
  /** A background export's percent (throttled): published for the editor waiting on it. */
  onProgress?: (percent: number) => void;
}

/**
 * The exports.render RPC. In order: 400 no_video_clips; 503 storage_unconfigured when storage
 * fails its check (before the rate window, so our outage costs no user an export); 429
 * rate_limited; then the run, within EXPORT_TIMEOUT_MS: answered from a finished export of the same
 * content when there is one (its `output_key` is then that export's file), else rendered. Every
 * failure is an AppError with the contract's code and a message safe for users.
 */
export async function renderExport(
  ctx: ExportContext,
  req: RenderRequest,
  opts: RenderOptions = {},
): Promise<RenderReply> {
  const logger = (opts.logger ?? ctx.logger).child({
    userId: req.user_id,
    projectId: req.project_id,
    videoId: req.video_id,
  });
  if (videoClipsOf(req.clips).length === 0) throw exportError('no_video_clips');

  try {
    await ctx.storage.check();
  } catch (err) {
    logger.warn({ err }, 'export refused: storage fails its check');
    throw exportError('storage_unconfigured');
  }

  const run = await startRun(
    ctx.db,
    { user_id: req.user_id, project_id: req.project_id, video_id: req.video_id },
    ctx.settings.rateLimit,
  );
  if (!run.started) {
    logger.info({ retryAfterSec: run.retryAfterSec }, 'export refused: rate limit');
    throw exportError('rate_limited', undefined, { retryAfterSec: run.retryAfterSec });
  }
  const runLogger = logger.child({ runId: run.runId });
  const startedAt = Date.now();

  const controller = new AbortController();
  let timedOut = false;
  const untilDeadline =
    opts.deadline !== undefined && Number.isFinite(opts.deadline) ? opts.deadline - startedAt : Infinity;
  const budgetMs = Math.max(0, Math.min(ctx.settings.exportTimeoutMs, untilDeadline));
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, budgetMs);

  try {
    const progress = opts.onProgress ? percentReporter(opts.onProgress) : undefined;
    const outcome = await exportByContent(ctx, req, controller.signal, runLogger, progress);
    const wallMs = Date.now() - startedAt;
    const { reply } = outcome;
    const r = outcome.reused ? null : outcome.result;
    await finishRun(ctx.db, run.runId, {
      duration_sec: reply.duration_sec,
      wall_ms: wallMs,
      cache_hits: r?.cacheHits ?? 0,
      cache_misses: r?.cacheMisses ?? 0,
      reused: outcome.reused,
      clips_copied: r?.copied ?? 0,
    });
    runLogger.info(
      r
        ? {
            wallMs,
            stagesMs: r.stages,
            cacheHits: r.cacheHits,
            cacheMisses: r.cacheMisses,
            copied: r.copied,
            soundtrackHit: r.soundtrackHit,
            durationSec: reply.duration_sec,
            videoClips: reply.video_clip_count,
            audioClips: reply.audio_overlay_count,
            bytes: reply.bytes,
          }
        : { wallMs, reused: true, outputKey: reply.output_key, durationSec: reply.duration_sec },
      'export done',
    );
    return reply;
  } catch (err) {
    const failure = toExportError(err, timedOut);
    const code = exportErrorCode(failure) ?? 'export_failed';
    if (code === 'export_failed') runLogger.error({ err }, 'export failed unexpectedly');
    else runLogger.warn({ code }, 'export failed');
    await failRun(ctx.db, run.runId, code, Date.now() - startedAt).catch((dbErr: unknown) =>
      runLogger.error({ err: dbErr }, 'export run not marked failed'),
    );
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}
