import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RenderReply, RenderRequest } from '@mf/contracts';
import type { Logger } from '@mf/logger';
import { videoClipsOf } from '../domain/timeline';
import { renderKey } from '../render/cache-keys';
import { untilSettled } from '../render/clip-cache';
import { runPipeline, sourceOptions, type PipelineResult, type RenderProgressReport } from '../render/pipeline';
import { statSources } from '../render/sources';
import {
  dropRenderResult,
  findRenderResult,
  saveRenderResult,
  touchRenderResult,
} from '../repositories/render-results.repository';
import type { ExportContext } from './context';

export type ExportOutcome =
  { reused: true; reply: RenderReply } | { reused: false; reply: RenderReply; result: PipelineResult };

/**
 * An export answered from its content address when it can be: the sources are stat'ed (no
 * download), the render key computed, and a finished export of the same key by this user answers
 * at once with its stored file (the caller records a new asset pointing at it). Otherwise the
 * timeline is rendered in its own scratch dir (removed however it ends) and recorded under its key.
 * Identical exports arriving together render once: the others wait for it, then reuse its file.
 */
export async function exportByContent(
  ctx: ExportContext,
  req: RenderRequest,
  signal: AbortSignal,
  logger: Logger,
  progress?: RenderProgressReport,
): Promise<ExportOutcome> {
  const stats = await statSources(req.clips, sourceOptions(ctx, logger), signal);
  const key = renderKey(req, (storageKey) => stats.get(storageKey)!.etag, ctx.settings.fps);
  const flight = `${req.user_id}:${key}`;
  for (let lookups = 0; ; lookups++) {
    const seen = ctx.renders.finished;
    const reply = await storedResult(ctx, req, key, logger);
    if (reply) return { reused: true, reply };
    const running = ctx.renders.get(flight);
    if (running) await untilSettled(running, signal);
    // A render that started and finished while the lookup ran (its record committed after the
    // lookup's snapshot): look again rather than render the same thing twice.
    else if (ctx.renders.finished === seen || lookups >= MAX_LOOKUPS) break;
  }

  const render = (async () => {
    await mkdir(ctx.settings.workDir, { recursive: true });
    const workDir = await mkdtemp(path.join(ctx.settings.workDir, 'export-'));
    try {
      return await runPipeline(ctx, req, workDir, signal, logger, stats, progress);
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch((err: unknown) =>
        logger.error({ err, workDir }, 'export scratch dir not removed'),
      );
    }
  })();
  ctx.renders.start(flight, render);
  try {
    const result = await render;
    // Recorded before the waiters wake, so they find it. Losing the record only costs a later re-render.
    await saveRenderResult(ctx.db, {
      user_id: req.user_id,
      render_key: key,
      output_key: result.reply.output_key,
      output_etag: result.etag,
      bytes: result.reply.bytes,
      duration_sec: result.reply.duration_sec,
    }).catch((err: unknown) => logger.error({ err }, 'export result not recorded'));
    return { reused: false, reply: result.reply, result };
  } finally {
    ctx.renders.end(flight);
  }
}

/** Lookups one export makes while other renders keep finishing, before it renders anyway. */
const MAX_LOOKUPS = 5;

/** The stored result of this key when its file is still there, unchanged; a stale record is dropped. */
async function storedResult(
  ctx: ExportContext,
  req: RenderRequest,
  key: string,
  logger: Logger,
): Promise<RenderReply | null> {
  const row = await findRenderResult(ctx.db, req.user_id, key);
  if (!row) return null;
  const stored = await ctx.storage.stat(row.output_key).catch((err: unknown) => {
    logger.warn({ err }, 'export result not checked in storage; rendering again');
    return undefined;
  });
  if (stored === undefined) return null;
  if (!stored || stored.etag !== row.output_etag) {
    await dropRenderResult(ctx.db, row);
    return null;
  }
  await touchRenderResult(ctx.db, req.user_id, key);
  return {
    output_key: row.output_key,
    duration_sec: row.duration_sec,
    video_clip_count: videoClipsOf(req.clips).length,
    audio_overlay_count: req.clips.filter((c) => c.track !== 'video').length,
    width: req.width,
    height: req.height,
    bytes: stored.size,
  };
}
