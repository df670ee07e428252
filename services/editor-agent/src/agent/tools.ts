import { editorFields as F, PROJECT_ASPECT_RATIOS, type Track } from '@mf/contracts';
import { contractArg, contractValue } from './contract-args';
import { isAppError, isCallerFault } from '@mf/errors';
import { listClips } from '../repositories/clips.repository';
import { addClip, moveClip, removeClip } from '../usecases/clips.usecase';
import type { EditorSettings } from '../usecases/context';
import { appendContext, requireProject, setAspectRatio } from '../usecases/projects.usecase';
import type { ToolCall, ToolDefinition } from './llm-client';
import { mediaTools } from './media-tool-definitions';
import { oneOf, parseArgs, text, ToolError, type Args } from './tool-args';
import { fn, type Tool } from './tool-kit';
import { recordEvent, TurnAbort, type TurnState } from './turn-state';

export const CONTEXT_TEXT_MAX = 4000;

/** The tools with their definitions: the generation tools, then the timeline and project tools (free). */
function tools(settings: EditorSettings): Tool[] {
  return [
    ...mediaTools(settings),
    {
      definition: fn(
        'add_clip',
        "Place a library asset on a track of this video's timeline. Tracks: video (images and videos, played one after another by idx), voice, sfx, music (audio, or the sound of a video asset). " +
          'Clips at or after idx move one place right. Free.',
        {
          track: contractArg(F.track, 'The track.'),
          asset_id: { type: 'string', description: 'Id of a library asset (ast_...).' },
          idx: contractArg(F.idx, 'Position on the track, 0 = first. Omit to append at the end.'),
          duration_sec: contractArg(
            F.durationSec,
            "How long it plays, seconds. Omit for the asset's own length (3 s for a still image).",
          ),
          start_sec: contractArg(
            F.startSec,
            'Audio tracks only: start time on the timeline in seconds. Omit to start with the video clip of the same idx.',
          ),
          volume: contractArg(F.volume, '0-2, 1 = unchanged. E.g. 0.3 for background music under a voice.'),
        },
        ['track', 'asset_id'],
      ),
      run: async (state, args) => {
        const track = contractValue<Track>(args, 'track', F.track.required())!;
        const assetId = text(args, 'asset_id', 100);
        const { clip } = await addClip(state.ctx, {
          user_id: state.userId,
          project_id: state.projectId,
          video_id: state.videoId,
          track,
          asset_id: assetId,
          idx: contractValue<number>(args, 'idx', F.idx),
          duration_sec: contractValue<number>(args, 'duration_sec', F.durationSec) ?? null,
          start_sec: contractValue<number>(args, 'start_sec', F.startSec) ?? null,
          volume: contractValue<number>(args, 'volume', F.volume),
        });
        state.clipIdsCreated.push(clip.id);
        return {
          summary: `clip ${clip.id} (${clip.asset_id}) on ${clip.track} at idx ${clip.idx}`,
          result: {
            clip_id: clip.id,
            track: clip.track,
            idx: clip.idx,
            asset_id: clip.asset_id,
            duration_sec: clip.duration_sec,
            start_sec: clip.start_sec,
            volume: clip.volume,
          },
        };
      },
    },
    {
      definition: fn(
        'move_clip',
        'Move a clip of this video to another position on its own track (0 = first); the other clips close up. Free.',
        {
          clip_id: { type: 'string', description: 'The clip (clp_...).' },
          idx: contractArg(F.idx, 'New position on the track.'),
        },
        ['clip_id', 'idx'],
      ),
      run: async (state, args) => {
        const clipId = await clipOfThisVideo(state, args);
        const { clip } = await moveClip(state.ctx, {
          user_id: state.userId,
          project_id: state.projectId,
          clip_id: clipId,
          idx: contractValue<number>(args, 'idx', F.idx.required())!,
        });
        return {
          summary: `clip ${clip.id} to idx ${clip.idx}`,
          result: { clip_id: clip.id, track: clip.track, idx: clip.idx },
        };
      },
    },
    {
      definition: fn(
        'remove_clip',
        "Remove a clip from this video's timeline (the asset stays in the library); the track closes up. Free.",
        { clip_id: { type: 'string', description: 'The clip (clp_...).' } },
        ['clip_id'],
      ),
      run: async (state, args) => {
        const clipId = await clipOfThisVideo(state, args);
        await removeClip(state.ctx, { user_id: state.userId, project_id: state.projectId, clip_id: clipId });
        state.clipIdsCreated = state.clipIdsCreated.filter((id) => id !== clipId);
        return { summary: `clip ${clipId} removed`, result: { clip_id: clipId, removed: true } };
      },
    },
    {
      definition: fn(
        'append_context',
        "Add a paragraph to the project's context: lasting facts and preferences (story, characters, style, brand, tone) that every later turn will see. Free.",
        {
          text: {
            type: 'string',
            minLength: 1,
            maxLength: CONTEXT_TEXT_MAX,
            description: 'The paragraph to add (markdown).',
          },
        },
        ['text'],
      ),
      run: async (state, args) => {
        const paragraph = text(args, 'text', CONTEXT_TEXT_MAX);
        const project = await appendContext(state.ctx, state.userId, state.projectId, paragraph);
        state.contextAppended = true;
        return {
          summary: `context +${paragraph.trim().length} chars`,
          result: { appended: true, context_length: project.context_md.length },
        };
      },
    },
    {
      definition: fn(
        'set_aspect_ratio',
        'Change the format of the project and of all its videos (export frames every clip to it). Free.',
        {
          aspect_ratio: {
            type: 'string',
            enum: [...PROJECT_ASPECT_RATIOS],
            description: '9:16 (vertical), 1:1, 4:5, 16:9 (landscape) or 4:3.',
          },
        },
        ['aspect_ratio'],
      ),
      run: async (state, args) => {
        const ratio = oneOf(args, 'aspect_ratio', PROJECT_ASPECT_RATIOS);
        const before = await requireProject(state.ctx, state.userId, state.projectId);
        if (before.aspect_ratio === ratio)
          return { summary: `aspect ratio already ${ratio}`, result: { aspect_ratio: ratio, changed: false } };
        await setAspectRatio(state.ctx, { user_id: state.userId, project_id: state.projectId, aspect_ratio: ratio });
        state.aspectRatioChanged = ratio;
        return {
          summary: `aspect ratio ${before.aspect_ratio} -> ${ratio}`,
          result: { aspect_ratio: ratio, changed: true },
        };
      },
    },
  ];
}

/** The clip_id argument, refused unless the clip is on the timeline this turn edits. */
async function clipOfThisVideo(state: TurnState, args: Args): Promise<string> {
  const clipId = text(args, 'clip_id', 100);
  const onTimeline = (await listClips(state.ctx.db, state.projectId, state.videoId)).some((c) => c.id === clipId);
  if (!onTimeline) throw new ToolError(`clip ${clipId} is not on this video's timeline`);
  return clipId;
}

export function toolDefinitions(settings: EditorSettings): ToolDefinition[] {
  return tools(settings).map((t) => t.definition);
}

export type ToolOutcome =
  { ok: true; summary: string; content: string } | { ok: false; error: string; content: string };

/**
 * Runs one tool call and answers what goes back to the model. Every failure but one becomes a
 * tool error the model can read: bad arguments, a refused second generation, a 4xx from a use case
 * (a missing clip), a failed generation (refunded). Only a TurnAbort (a 402) leaves the loop.
 */
export async function executeToolCall(state: TurnState, call: ToolCall): Promise<ToolOutcome> {
  const name = call.function.name;
  const all = tools(state.ctx.settings);
  const tool = all.find((t) => t.definition.function.name === name);
  recordEvent(state, 'tool_call', { name, arguments: eventArguments(call.function.arguments) });
  let outcome: ToolOutcome;
  try {
    if (!tool)
      throw new ToolError(
        `unknown tool ${JSON.stringify(name.slice(0, 60))}; available: ${all.map((t) => t.definition.function.name).join(', ')}`,
      );
    const args = parseArgs(
      call.function.arguments,
      Object.keys(tool.definition.function.parameters.properties as Record<string, unknown>),
    );
    const done = await tool.run(state, args);
    outcome = { ok: true, summary: done.summary, content: JSON.stringify({ ok: true, ...done.result }) };
  } catch (err) {
    if (err instanceof TurnAbort) throw err;
    let message: string;
    if (err instanceof ToolError) message = err.message;
    else if (isAppError(err) && isCallerFault(err)) message = err.body.error;
    else {
      state.ctx.logger.error(
        { err: (err as Error).message, stack: (err as Error).stack, tool: name, turnId: state.turnId },
        'tool failed',
      );
      message = 'the tool failed because of a temporary problem on the server; tell the user and suggest trying again';
    }
    outcome = { ok: false, error: message, content: JSON.stringify({ ok: false, error: message }) };
  }
  if (outcome.ok) recordEvent(state, 'tool_result', { name, ok: true, summary: outcome.summary });
  else recordEvent(state, 'tool_error', { name, error: outcome.error });
  return outcome;
}

/** The call's arguments for agent_events: the parsed object, or the raw text (cut short) when it is not JSON. */
function eventArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw.slice(0, 2000);
  }
}
