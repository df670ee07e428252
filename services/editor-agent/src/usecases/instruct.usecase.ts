import {
  billingRpc,
  turnStreamEventDef,
  type AgentEvent,
  type InstructReply,
  type InstructRequest,
} from '@mf/contracts';
import { AppError, isAppError, isErrorKind } from '@mf/errors';
import { runAgentLoop } from '../agent/agent-loop';
import type { ChatMessage, LlmClient } from '../agent/llm-client';
import { refundQuietly } from '../agent/media-delivery';
import { buildSystemPrompt } from '../agent/system-prompt';
import { newTurnState, recordEvent, TurnAbort, type TurnState } from '../agent/turn-state';
import { newId } from '../domain/ids';
import { assetView, clipView, type AssetRow } from '../domain/records';
import { listAssets } from '../repositories/assets.repository';
import { listClips } from '../repositories/clips.repository';
import {
  findOwnedProject,
  findVideo,
  listVideos,
  tryLockVideo,
  unlockVideo,
} from '../repositories/projects.repository';
import { finishTurn, insertEvents, insertTurn, threadOf, type TurnRow } from '../repositories/turns.repository';
import { withReferenceImages, type FetchedReferences } from './assets.usecase';
import type { EditorContext } from './context';
import { requireProject, resolveVideo } from './projects.usecase';

export const LLM_NOT_CONFIGURED = 'The language-model provider is not configured on this server';
export const TURN_BUSY = 'Another instruction is running on this video; try again when it finishes';
/** The lock outlives the turn's own limit by this much, so only a dead process's lock expires. */
const LOCK_LEASE_EXTRA_MS = 60_000;
const LOCK_POLL_MS = 200;
/** Earlier turns given to the model as conversation. */
const THREAD_TURNS = 20;

/**
 * One agent turn on a video: the request is checked (reference images fetched and probed), then
 * the turn price is charged (never refunded), then the model works with its tools until it
 * answers. Turns of one video never overlap (a lock with a lease).
 */
export async function instruct(ctx: EditorContext, req: InstructRequest): Promise<InstructReply> {
  if (!req.instruction.trim() && !req.image_urls.length)
    throw AppError.badRequest('instruction is required (or image_urls)');
  // Ownership first: another user's project is a 404 whatever this server's configuration.
  const project = await requireProject(ctx, req.user_id, req.project_id);
  const video = await resolveVideo(ctx, project, req.video_id);
  const llm = ctx.llm;
  if (!llm) throw new AppError('unavailable', { error: LLM_NOT_CONFIGURED });

  const turnId = newId('trn');
  await lockTurn(ctx, video.id, turnId);
  try {
    // Reference images are fetched and checked before the charge: a refused URL is a 400 that
    // costs nothing and leaves nothing in the library.
    return await withReferenceImages(ctx, req.image_urls, async (fetched) => {
      await chargeTurn(ctx, req.user_id, turnId);
      return runTurn(ctx, req, { projectId: project.id, videoId: video.id, turnId, llm, fetched });
    });
  } finally {
    await unlockVideo(ctx.db, video.id, turnId).catch((e: Error) =>
      ctx.logger.error(
        { err: e.message, videoId: video.id },
        'could not release a turn lock; it expires with its lease',
      ),
    );
  }
}

/** The charged turn: the model works with its tools until it answers; a failure is recorded on the turn. */
async function runTurn(
  ctx: EditorContext,
  req: InstructRequest,
  t: { projectId: string; videoId: string; turnId: string; llm: LlmClient; fetched: FetchedReferences },
): Promise<InstructReply> {
  const { projectId, videoId, turnId, llm } = t;
  await insertTurn(ctx.db, {
    id: turnId,
    video_id: videoId,
    user_id: req.user_id,
    instruction: req.instruction,
    image_urls: req.image_urls,
  });
  const state = newTurnState({
    ctx,
    turnId,
    userId: req.user_id,
    apiKeyId: req.api_key_id,
    projectId,
    videoId,
    deadline: Date.now() + ctx.settings.agentMaxWallMs,
    ...(req.stream_id ? { onEvent: turnPublisher(ctx, req.stream_id) } : {}),
  });
  let messages: ChatMessage[] = [];
  try {
    const references = await t.fetched.store(projectId);
    state.assetsCreated.push(...references);
    const user = userMessage(req.instruction, references);
    messages = [user];
    const [system, history] = await Promise.all([
      systemPrompt(ctx, req.user_id, projectId, videoId),
      thread(ctx, videoId),
    ]);
    const result = await runAgentLoop(state, { llm, system, history, user });
    messages = result.messages;
    await finishTurn(ctx.db, turnId, { status: 'done', assistant_text: result.text, messages });
    await insertEvents(ctx.db, turnId, state.events);
    return await reply(state, result.text);
  } catch (err) {
    const failure = err instanceof TurnAbort ? err.error : err;
    recordEvent(state, 'error', { error: isAppError(failure) ? failure.body.error : 'Internal error' });
    await finishTurn(ctx.db, turnId, { status: 'failed', messages, error: (failure as Error).message }).catch(
      (e: Error) => ctx.logger.error({ err: e.message, turnId }, 'could not record a failed turn'),
    );
    await insertEvents(ctx.db, turnId, state.events).catch((e: Error) =>
      ctx.logger.error({ err: e.message, turnId }, 'could not record agent events'),
    );
    throw failure;
  }
}

/** Waits (up to settings.turnLockWaitMs) for the video's turn lock: 409 when another turn keeps it. */
async function lockTurn(ctx: EditorContext, videoId: string, turnId: string): Promise<void> {
  // A model call that starts just before the wall-time limit may still run a full LLM timeout.
  const lease = ctx.settings.agentMaxWallMs + (ctx.settings.llmTimeoutMs ?? 120_000) + LOCK_LEASE_EXTRA_MS;
  const giveUpAt = Date.now() + ctx.settings.turnLockWaitMs;
  for (;;) {
    if (await tryLockVideo(ctx.db, videoId, turnId, lease)) return;
    if (Date.now() >= giveUpAt) throw AppError.conflict(TURN_BUSY);
    await new Promise((r) => setTimeout(r, Math.min(LOCK_POLL_MS, Math.max(1, giveUpAt - Date.now()))));
  }
}

/** The turn's price, before anything else happens. A 402 passes through as billing wrote it. */
async function chargeTurn(ctx: EditorContext, userId: number, turnId: string): Promise<void> {
  const reference = `turn:${turnId}`;
  if (ctx.settings.turnPrice <= 0) return;
  try {
    await ctx.bus.rpc(billingRpc, 'charge', {
      user_id: userId,
      reference,
      amount: ctx.settings.turnPrice,
      description: 'Editor agent turn',
      model: 'editor-turn',
    });
  } catch (err) {
    // Unconfirmed (a timeout): the turn does not run, so its reference is closed; a 402 moved nothing.
    if (!isErrorKind(err, 'payment_required')) {
      await refundQuietly(ctx, userId, reference, 'turn not run: charge not confirmed');
    }
    throw err;
  }
}

function userMessage(instruction: string, references: AssetRow[]): ChatMessage {
  const parts = [instruction.trim() || '(no text: the user only attached images)'];
  if (references.length) {
    parts.push(
      `\n[Attached reference image${references.length > 1 ? 's' : ''}, now in the media library: ${references.map((r) => r.id).join(', ')}]`,
    );
  }
  return { role: 'user', content: parts.join('') };
}

/** The system message from the project's current state (after this turn's imports). */
async function systemPrompt(ctx: EditorContext, userId: number, projectId: string, videoId: string): Promise<string> {
  const [project, video, videos, clips, assets] = await Promise.all([
    findOwnedProject(ctx.db, userId, projectId),
    findVideo(ctx.db, projectId, videoId),
    listVideos(ctx.db, projectId),
    listClips(ctx.db, projectId, videoId),
    listAssets(ctx.db, projectId),
  ]);
  if (!project || !video) throw AppError.notFound('Project not found');
  return buildSystemPrompt({ project, video, videos, clips, assets, settings: ctx.settings });
}

/** Earlier finished turns of this video as user / assistant pairs (tool traffic left out). */
async function thread(ctx: EditorContext, videoId: string): Promise<ChatMessage[]> {
  const turns: TurnRow[] = await threadOf(ctx.db, videoId, THREAD_TURNS);
  const out: ChatMessage[] = [];
  for (const t of turns) {
    const first = t.messages[0] as ChatMessage | undefined;
    const said = first?.role === 'user' && typeof first.content === 'string' ? first.content : t.instruction;
    out.push({ role: 'user', content: said });
    out.push({ role: 'assistant', content: t.assistant_text ?? '' });
  }
  return out;
}

async function reply(state: TurnState, text: string): Promise<InstructReply> {
  const { ctx } = state;
  // Re-read: a later add or move in the same turn may have shifted an earlier clip's idx.
  const created = new Set(state.clipIdsCreated);
  const clips = (await listClips(ctx.db, state.projectId, state.videoId)).filter((c) => created.has(c.id));
  const order = new Map(state.clipIdsCreated.map((id, i) => [id, i]));
  clips.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return {
    assistant_text: text,
    assets_created: state.assetsCreated.map((a) => assetView(a, ctx.settings.publicBaseUrl)),
    clips_created: clips.map(clipView),
    context_appended: state.contextAppended,
    aspect_ratio_changed: state.aspectRatioChanged,
    media_gen_done: state.mediaGenDone,
    agent_events: state.events,
  };
}

/**
 * Publishes a streamed turn's events for the gateway holding the stream. Best effort: the reply
 * (the stream's last event) still carries every agent event.
 */
function turnPublisher(ctx: EditorContext, streamId: string): (event: AgentEvent) => void {
  return (event) => {
    ctx.bus
      .publishEvent(turnStreamEventDef, { stream_id: streamId, event })
      .catch((err: unknown) => ctx.logger.debug({ err, streamId }, 'turn event not published'));
  };
}
