import { randomUUID } from 'node:crypto';
import {
  EXPORT_ERROR_KIND,
  type AgentEvent,
  type ExportReply,
  type ExportStatus,
  type InstructReply,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { call, getProjectState, instructRequest } from '../../core/usecases/editor.usecase';
import { getExport, startExport } from '../../core/usecases/editor-exports.usecase';
import type { ProgressStep } from '../tool-progress';
import { followUntilEnded, untilCancelled } from './follow-until';
import { opts, type ToolContext } from './tool';

/** How long past its own limit a followed call waits for the record's end before giving up. */
const LATE_MS = 60_000;
const SUMMARY_MAX = 120;

/** One agent event in a few words, for a progress message. */
export function describeAgentEvent(event: AgentEvent): string {
  const e = event as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const detail: Record<string, string> = {
    step: e.step !== undefined ? `step ${text(e.step)}` : 'step',
    tool_call: `calling ${text(e.name)}`,
    tool_result: `${text(e.name)} done${e.summary ? `: ${text(e.summary)}` : ''}`,
    tool_error: `${text(e.name)} failed: ${text(e.error)}`,
    message: `says: ${text(e.text)}`,
    generation: `generating ${text(e.kind)} (${text(e.job_id)})`,
    media_generation: `media ${text(e.status ?? e.kind ?? 'generated')}`,
    error: `error: ${text(e.error)}`,
  };
  const line = detail[event.type] ?? event.type;
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}

/**
 * video_editor_instruct followed: the same turn, with a stream id so that the editor publishes
 * its events as they happen (as for a streamed instruct); each becomes a progress stage.
 */
export async function followedInstruct(
  ctx: ToolContext,
  projectId: unknown,
  body: Record<string, unknown>,
  step: ProgressStep,
): Promise<InstructReply> {
  const request = instructRequest(ctx.auth, projectId, body);
  const turns = ctx.turns;
  // A cancelled task stops following the turn; the turn itself runs to its end (docs/mcp.md "Tasks").
  if (!turns) return untilCancelled(ctx, call(ctx.bus, 'instruct', request, opts(ctx, ctx.instructTimeoutMs)));
  const streamId = randomUUID();
  const stop = turns.listen(streamId, (event) => step(describeAgentEvent(event)));
  try {
    const turn = call(ctx.bus, 'instruct', { ...request, stream_id: streamId }, opts(ctx, ctx.instructTimeoutMs));
    return await untilCancelled(ctx, turn);
  } finally {
    stop();
  }
}

/**
 * video_editor_export followed: a background export (POST .../export with `Prefer: respond-async`)
 * followed by its export.* events and, between them, by reading it; its percent rendered becomes
 * progress. The answer is the blocking export's: the reply (its clip counts from the export asset's
 * metadata) or the same error with the same status.
 */
export async function followedExport(
  ctx: ToolContext,
  projectId: unknown,
  body: Record<string, unknown>,
  step: ProgressStep,
): Promise<ExportReply> {
  const accepted = await startExport(ctx.bus, ctx.auth, projectId, body, opts(ctx));
  step('rendering', 0);
  const done = await untilSettled(ctx, projectId, accepted.export_id, step);
  if (done.status === 'failed' || !done.asset_id || !done.video_url || done.duration_sec === null) {
    const failure = done.error ?? {
      error: 'export_failed',
      message: 'The export failed unexpectedly. Please try again.',
    };
    throw new AppError(EXPORT_ERROR_KIND[failure.error], { ...failure });
  }
  const state = await getProjectState(ctx.bus, ctx.auth, projectId, { video_id: done.video_id }, opts(ctx));
  const metadata = (state.assets.find((a) => a.id === done.asset_id)?.metadata ?? {}) as Record<string, unknown>;
  const count = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    asset_id: done.asset_id,
    video_url: done.video_url,
    duration_sec: done.duration_sec,
    video_clip_count: count(metadata.video_clip_count),
    audio_overlay_count: count(metadata.audio_overlay_count),
  };
}

/** The export once completed or failed: from its events on this replica, or read every poll period. */
function untilSettled(
  ctx: ToolContext,
  projectId: unknown,
  exportId: string,
  step: ProgressStep,
): Promise<ExportStatus> {
  let last = 0;
  return followUntilEnded<ExportStatus>(ctx, {
    fromEvent: (e) => {
      const data = e.data as ExportStatus;
      return e.type.startsWith('export.') && data.export_id === exportId ? data : undefined;
    },
    read: () => getExport(ctx.bus, ctx.auth, projectId, exportId, opts(ctx)),
    ended: (e) => e.status !== 'rendering',
    onState: (e) => {
      if (e.progress <= last) return;
      last = e.progress;
      step(`rendering, ${e.progress}%`, e.progress);
    },
    timeoutMs: ctx.exportTimeoutMs + LATE_MS,
    timedOut: () =>
      new AppError('timed_out', { error: 'export_timeout', message: 'The export took too long. Please try again.' }),
  });
}
