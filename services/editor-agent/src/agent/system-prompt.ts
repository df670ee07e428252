import { IMAGE_PRICE, videoCredits } from '@mf/catalog';
import type { AssetRow, ClipRow, ProjectRow, VideoRow } from '../domain/records';
import type { EditorSettings } from '../usecases/context';

/** The contract's "Recommended video prompt layout (advisory)", quoted word for word. */
export const VIDEO_PROMPT_LAYOUT =
  "A line 'Total: <duration>s / <shot count> shot(s) / <aspect ratio>', then one line per shot naming camera position, one camera move, " +
  "subject action and a lens or lighting note, then an 'Audio:' line listing sound effects, ambient sound, and music intent or NO MUSIC. " +
  'One camera move per shot; never combine moves.';

export const ONE_MEDIA_RULE =
  'Only one media generation is allowed per turn. Tell the user what you generated and ask them to confirm before generating more.';

const TRACK_ORDER = ['video', 'voice', 'sfx', 'music'] as const;
const STILL_SECONDS = 3;

export interface PromptInput {
  project: ProjectRow;
  video: VideoRow;
  /** Every video of the project (the target is one of them). */
  videos: VideoRow[];
  /** Clips of the target video. */
  clips: ClipRow[];
  assets: AssetRow[];
  settings: EditorSettings;
}

/** The system message of a turn: role, the project's state, prices, the prompt layout and the rules. */
export function buildSystemPrompt(input: PromptInput): string {
  const { project, video, settings } = input;
  const video720 = videoCredits(false).per_second_by_resolution;
  return [
    'You are the editing agent of a chat-driven video editor. Each user message is one turn: you act on the project with your tools, then answer.',
    'A project has a media library (images, videos, audio), a context (notes that steer every turn) and one or more videos; each video has a multi-track timeline (video, voice, sfx, music) that is exported as one mp4.',
    '',
    `## Project "${project.name}" (${project.id})`,
    `Format: ${project.aspect_ratio}.${project.description ? ` Description: ${oneLine(project.description, 500)}` : ''}`,
    '',
    '## Context (notes kept across turns; add to it with append_context)',
    project.context_md.trim() ? project.context_md.trim() : '(empty)',
    '',
    `## Timeline of the video "${video.name}" (${video.id}), the one this conversation edits`,
    ...timeline(input),
    ...(input.videos.length > 1
      ? [
          '',
          `Other videos of the project (not edited here): ${input.videos
            .filter((v) => v.id !== video.id)
            .map((v) => `"${v.name}" (${v.id})`)
            .join(', ')}`,
        ]
      : []),
    '',
    '## Media library (asset ids to use with add_clip and image_asset_id)',
    ...library(input.assets),
    '',
    '## Prices (credits, charged to the user)',
    `Image: ${IMAGE_PRICE}. Video: ${video720['720p']} per second at 720p, ${video720['480p']} per second at 480p (e.g. 4 s at 720p = ${4 * video720['720p']}). ` +
      `Voice line: ${settings.voicePrice}. Music: ${settings.musicPrice}. Sound effect: ${settings.sfxPrice}. Editing tools are free. This turn already cost ${settings.turnPrice}.`,
    '',
    '## Recommended video prompt layout (use it for generate_video prompts)',
    VIDEO_PROMPT_LAYOUT,
    '',
    '## Rules',
    '1. At most ONE media generation (generate_image, generate_video, generate_voice, generate_music or generate_sfx) per turn. ' +
      'When the user wants several, make the first one, then say what comes next and ask them to confirm; do the next one in the next turn.',
    '2. Generated media only goes into the library. Use add_clip to place it on the timeline (pictures on the video track, a voice line on voice, music on music, effects on sfx) when the user wants it there.',
    '3. Use only asset ids and clip ids shown above or returned by your tools; never invent ids.',
    '4. When the user states a lasting preference (style, characters, tone, brand), record it with append_context.',
    '5. If a tool returns an error, do not repeat the same call blindly: fix the arguments or explain the problem to the user.',
    '6. Be brief. Say what you did (with the cost of any generation) and end every reply with a short confirmation question about the next step.',
  ].join('\n');
}

function timeline(input: PromptInput): string[] {
  const byId = new Map(input.assets.map((a) => [a.id, a]));
  const lines: string[] = [];
  for (const track of TRACK_ORDER) {
    const clips = input.clips.filter((c) => c.track === track).sort((a, b) => a.idx - b.idx);
    if (!clips.length) {
      lines.push(`- ${track}: (empty)`);
      continue;
    }
    lines.push(`- ${track}:`);
    for (const c of clips) {
      const asset = byId.get(c.asset_id);
      const own = asset ? assetSeconds(asset) : null;
      const plays = c.duration_sec ?? own ?? (asset?.kind === 'image' ? STILL_SECONDS : null);
      const parts = [
        `idx ${c.idx}`,
        `clip ${c.id}`,
        `asset ${c.asset_id}${asset ? ` (${asset.kind})` : ''}`,
        plays !== null ? `${round(plays)} s` : 'length unknown',
      ];
      if (c.start_sec !== null) parts.push(`starts at ${round(c.start_sec)} s`);
      if (c.volume !== 1) parts.push(`volume ${c.volume}`);
      lines.push(`  - ${parts.join(', ')}`);
    }
  }
  return lines;
}

function library(assets: AssetRow[]): string[] {
  if (!assets.length) return ['(empty)'];
  // The newest matter most; a long library is cut to its last 60 entries.
  const shown = assets.slice(-60);
  const lines = assets.length > shown.length ? [`(${assets.length - shown.length} older assets not shown)`] : [];
  for (const a of shown) {
    const m = a.metadata ?? {};
    const parts = [`${a.id}`, a.kind, a.source];
    const seconds = assetSeconds(a);
    if (seconds !== null) parts.push(`${round(seconds)} s`);
    if (typeof m.width === 'number' && typeof m.height === 'number') parts.push(`${m.width}x${m.height}`);
    const about = typeof m.prompt === 'string' ? m.prompt : typeof m.text === 'string' ? `"${m.text}"` : null;
    if (about) parts.push(`about: ${oneLine(about, 200)}`);
    lines.push(`- ${parts.join(', ')}`);
  }
  return lines;
}

function assetSeconds(a: AssetRow): number | null {
  const d = a.metadata?.duration_sec;
  return typeof d === 'number' && d > 0 ? d : null;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
