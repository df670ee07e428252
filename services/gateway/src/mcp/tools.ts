import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod/v4';
import type { Bus } from '@mf/bus';
import { IMAGE_ASPECT_RATIOS, IMAGE_URLS_MAX, PROMPT_MAX, VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_RESOLUTIONS, imageCost, videoCost, type FalEndpoints } from '@mf/catalog';
import { PROJECT_ASPECT_RATIOS, SEED_MAX, TRACKS } from '@mf/contracts';
import type { AuthContext } from '../http/auth.middleware';
import {
  CLIP_IDX_CAP,
  CONTEXT_MD_MAX,
  DEFAULT_ASPECT_RATIO,
  DEFAULT_PROJECT_NAME,
  DEFAULT_VIDEO_NAME,
  DESCRIPTION_MAX,
  EXPORT_FITS,
  INSTRUCTION_MAX,
  INSTRUCT_IMAGE_URLS_MAX,
  PROJECT_NAME_MAX,
} from '../http/validators/editor.validators';
import * as editor from '../usecases/editor.usecase';
import { GENERATION_SCOPES, generationType, submitGeneration } from '../usecases/generate.usecase';
import { getJob, JOB_ID } from '../usecases/jobs.usecase';
import { listModelsFor, MODELS_SCOPE } from '../usecases/list-models.usecase';
import * as out from './schemas';
import { arg, toolArgs, type ToolArgsSchema } from './schemas';

/** What a tool call runs with: the caller of this HTTP request and the gateway's settings. */
export interface ToolContext {
  bus: Bus;
  auth: AuthContext;
  /** The HTTP request's id: the RPCs of the call carry it. */
  correlationId: string;
  falEndpoints: FalEndpoints;
  submitTimeoutMs: number;
  instructTimeoutMs: number;
  exportTimeoutMs: number;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: ToolArgsSchema;
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** Takes minutes: progress notifications keep the client's request timer alive. */
  long?: boolean;
  /** Maps the arguments onto the REST operation's use case and returns its reply. */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<object>;
}

const list = (values: readonly (string | number)[]) => values.join(', ');
const scopeLine = (scope: string) => `Scope: ${scope}.`;
const opts = (ctx: ToolContext, timeoutMs?: number) => ({ correlationId: ctx.correlationId, timeoutMs });

// Arguments shared by the editor tools.

const projectId = arg({
  type: 'string',
  pattern: editor.PROJECT_ID.source,
  description: 'Project id (prj_...), as returned by video_editor_create_project or video_editor_list_projects.',
});
const videoIdOf = (what: string) =>
  arg({ type: 'string', maxLength: 100, description: `Video id (vid_...) from video_editor_get_state or video_editor_create_video. ${what}` });
const projectAspectRatio = (what: string) => arg({ type: 'string', enum: [...PROJECT_ASPECT_RATIOS], description: what });
const videoName = arg({ type: 'string', minLength: 1, maxLength: PROJECT_NAME_MAX, description: `Name, 1-${PROJECT_NAME_MAX} characters, not blank.` });

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const EDIT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const SET: ToolAnnotations = { ...EDIT, idempotentHint: true };

const costs = {
  video720: videoCost(false, 1, '720p'),
  video480: videoCost(false, 1, '480p'),
  fast: videoCost(true, 1, '720p'),
  example: videoCost(false, 5, '720p'),
  image: imageCost(1),
};

const POLLING = 'Then call job_status with the job_id every 2-5 seconds while status is processing.';

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_models',
    title: 'List generation models',
    description: [
      'List the generation models: id, type (image or video), capabilities, accepted parameters (params: type, default, enum, limits) and prices in credits.',
      'Free and read-only. Use it to choose parameters or check a price before generate_media.',
      scopeLine(MODELS_SCOPE),
    ].join(' '),
    input: toolArgs({}),
    output: out.modelsOutput,
    annotations: READ_ONLY,
    run: async (_args, ctx) => listModelsFor(ctx.auth, ctx.falEndpoints),
  },
  {
    name: 'job_status',
    title: 'Get a generation job',
    description: [
      'Read a generation job started with generate_media: status (processing, completed, failed or cancelled), credits_consumed, timestamps, and the result.',
      'Poll it every 2-5 seconds while status is processing (images take seconds, videos one to several minutes).',
      'Stop when status is completed (result.images: https URLs of the images; result.video: https URL of the mp4), failed (error says why; the credits were refunded) or cancelled (refunded).',
      "Only jobs of the key's owner are visible: any other id answers 'Job not found'. Jobs older than about 30 days may be gone (same answer).",
      'Free; any key may call it, no scope needed.',
    ].join(' '),
    input: toolArgs({ job_id: arg({ type: 'string', pattern: JOB_ID.source, description: 'The job_id returned by generate_media (job_...).' }) }, ['job_id']),
    output: out.jobOutput,
    annotations: READ_ONLY,
    run: async ({ job_id }, ctx) => getJob(ctx.bus, ctx.auth, job_id, opts(ctx)),
  },
  {
    name: 'generate_media',
    title: 'Generate an image or a video',
    description: [
      'Start generating an image or a video from a prompt. Returns at once with a job_id (status processing) and the credits charged; the media is made in the background.',
      `${POLLING} When completed, job_status gives the https URL(s) of the result.`,
      `type "image" (model imagegen-2; needs scope ${GENERATION_SCOPES.image}): prompt; optional image_urls (1-${IMAGE_URLS_MAX} https reference images: the request becomes an edit of them), num_images (1-4, default 1), aspect_ratio (${list(IMAGE_ASPECT_RATIOS)}; default 1:1), seed. Costs ${costs.image} credits per image.`,
      `type "video" (model vidgen-2.0, or vidgen-2.0-fast with fast; needs scope ${GENERATION_SCOPES.video}): prompt; optional image_url (https: animates that image, image-to-video), fast (true: the faster text-to-video model vidgen-2.0-fast, not with image_url), duration_seconds (${list(VIDEO_DURATIONS)}; default 5), aspect_ratio (${list(VIDEO_ASPECT_RATIOS)}; default 16:9), resolution (${list(VIDEO_RESOLUTIONS)}; default 720p), generate_audio (native sound effects and ambience; default true), seed.`,
      `Video costs per second: ${costs.video720} credits at 720p, ${costs.video480} at 480p, ${costs.fast} with fast (e.g. 5 s at 720p = ${costs.example}).`,
      'Arguments of the other type are refused by name. Credits are charged at submission (not enough: an error with credits_required and credits_remaining) and refunded if the job fails or is cancelled. Not idempotent: each call starts (and charges) a new job.',
      "Video prompts work best as a line 'Total: <duration>s / <shot count> shot(s) / <aspect ratio>', then one line per shot (camera position, one camera move, subject action, a lens or lighting note), then an 'Audio:' line (sound effects, ambience, music intent or NO MUSIC).",
    ].join('\n'),
    input: toolArgs(
      {
        type: arg({ type: 'string', enum: ['image', 'video'], description: 'What to generate.' }),
        prompt: arg({ type: 'string', minLength: 1, maxLength: PROMPT_MAX, description: `What to generate, 1-${PROMPT_MAX} characters.` }),
        image_urls: arg({
          type: 'array',
          items: { type: 'string', format: 'uri' },
          maxItems: IMAGE_URLS_MAX,
          description: `Image only: up to ${IMAGE_URLS_MAX} https URLs of reference images; when non-empty the request edits them. Default [].`,
        }),
        num_images: arg({ type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'Image only: how many images, 1-4.' }),
        image_url: arg({ type: 'string', format: 'uri', description: 'Video only: https URL of a start image (image-to-video). Not with fast.' }),
        fast: arg({ type: 'boolean', default: false, description: 'Video only: the faster, cheaper text-to-video model (no image_url).' }),
        duration_seconds: arg({ type: 'integer', enum: [...VIDEO_DURATIONS], default: 5, description: 'Video only: length in seconds.' }),
        resolution: arg({ type: 'string', enum: [...VIDEO_RESOLUTIONS], default: '720p', description: 'Video only: output resolution.' }),
        generate_audio: arg({ type: 'boolean', default: true, description: 'Video only: native sound effects and ambient audio.' }),
        aspect_ratio: arg({
          type: 'string',
          enum: [...new Set<string>([...VIDEO_ASPECT_RATIOS, ...IMAGE_ASPECT_RATIOS])],
          description: `Frame shape. Image: ${list(IMAGE_ASPECT_RATIOS)} (default 1:1). Video: ${list(VIDEO_ASPECT_RATIOS)} (default 16:9).`,
        }),
        seed: arg({ type: 'integer', minimum: 0, maximum: SEED_MAX, description: 'For reproducible output; random when omitted (the job keeps the one used).' }),
      },
      ['type', 'prompt'],
    ),
    output: out.submittedOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ type, ...body }, ctx) => submitGeneration(ctx.bus, ctx.auth, generationType(type), body, { submitTimeoutMs: ctx.submitTimeoutMs, correlationId: ctx.correlationId }),
  },

  // The video editor. A project has a media library, a markdown context, and videos, each with a
  // multi-track timeline (video, voice, sfx, music) and its own agent chat.
  {
    name: 'video_editor_create_project',
    title: 'Create a video-editor project',
    description: [
      'Create a video-editor project: a media library, a markdown context for the editing agent, and one video named "Main video" (its own timeline with tracks video, voice, sfx and music).',
      'Returns the project; its id (prj_...) is the project_id of every other video_editor_* tool. Free.',
      'Next: video_editor_instruct to let the agent build it, or the direct edits (video_editor_import_asset, video_editor_add_clip, ...), then video_editor_export.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({
      name: arg({ type: 'string', minLength: 1, maxLength: PROJECT_NAME_MAX, default: DEFAULT_PROJECT_NAME, description: `Project name, 1-${PROJECT_NAME_MAX} characters.` }),
      description: arg({ type: 'string', maxLength: DESCRIPTION_MAX, description: `What the project is about, up to ${DESCRIPTION_MAX} characters (stored, not shown in the project record).` }),
      aspect_ratio: projectAspectRatio(`Format of the project and its videos: ${list(PROJECT_ASPECT_RATIOS)}. Default ${DEFAULT_ASPECT_RATIO}.`),
    }),
    output: out.projectOutput,
    annotations: EDIT,
    run: async (args, ctx) => editor.createProject(ctx.bus, ctx.auth, args, opts(ctx)),
  },
  {
    name: 'video_editor_list_projects',
    title: 'List video-editor projects',
    description: ["List every video-editor project of the key's owner (id, name, aspect_ratio, updated_at), most recently updated first. Free.", scopeLine(editor.EDITOR_READ)].join(' '),
    input: toolArgs({}),
    output: out.projectListOutput,
    annotations: READ_ONLY,
    run: async (_args, ctx) => editor.listProjects(ctx.bus, ctx.auth, opts(ctx)),
  },
  {
    name: 'video_editor_get_state',
    title: 'Get a project',
    description: [
      "Read a project's full state: the project (name, aspect_ratio, context_md), its videos, its media library (assets with their https URLs) and the timeline clips (track, idx position, asset_id).",
      'Use it to find video, asset and clip ids before editing, and to check the result of edits or agent turns. Free.',
      scopeLine(editor.EDITOR_READ),
    ].join(' '),
    input: toolArgs({ project_id: projectId, video_id: videoIdOf('Only the clips of this video; default: the clips of every video.') }, ['project_id']),
    output: out.stateOutput,
    annotations: READ_ONLY,
    run: async ({ project_id, video_id }, ctx) => editor.getProjectState(ctx.bus, ctx.auth, project_id, { video_id }, opts(ctx)),
  },
  {
    name: 'video_editor_instruct',
    title: 'Instruct the editing agent',
    description: [
      "Advance a project by one turn of its AI editing agent: send a plain-language instruction (or the answer to the agent's last question) and/or reference image URLs.",
      'In one turn the agent may note the brief in the context, generate at most one asset (image, video, voice, sound effect or music), place clips on the timeline or change the format; assistant_text is its reply and usually ends with a confirmation question.',
      'Loop: send the answer as the next instruction until the timeline is right, then call video_editor_export.',
      'Costs 5 credits per turn (never refunded) plus the price of any media it generates (refunded when nothing is delivered).',
      'Synchronous and slow: typically 5-180 s, up to about 5 min with a video generation; use a long request timeout (with a progressToken, progress notifications arrive every 10 s).',
      'Errors: insufficient credits (credits_required, credits_remaining), 503 when no language model is configured on this server, 502 when the agent fails.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({
      project_id: projectId,
      instruction: arg({ type: 'string', maxLength: INSTRUCTION_MAX, description: `The request or reply, up to ${INSTRUCTION_MAX} characters. Required unless image_urls is given.` }),
      image_urls: arg({ type: 'array', items: { type: 'string', format: 'uri' }, maxItems: INSTRUCT_IMAGE_URLS_MAX, description: `Up to ${INSTRUCT_IMAGE_URLS_MAX} https URLs of reference images for this turn.` }),
      video_id: videoIdOf("The video whose timeline and chat this turn works on; default: the project's first video."),
    }, ['project_id']),
    output: out.instructOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    long: true,
    run: async ({ project_id, ...body }, ctx) => editor.instruct(ctx.bus, ctx.auth, project_id, body, opts(ctx, ctx.instructTimeoutMs)),
  },
  {
    name: 'video_editor_export',
    title: 'Export a video to mp4',
    description: [
      "Render a video's timeline (video track in order, voice, sfx and music mixed over it) into one mp4 and return its permanent https video_url (downloadable, embeddable); the export is also added to the library as an asset.",
      'Free. Synchronous: typically 30 s to 3 min; use a long request timeout.',
      'Errors carry a code and a message: no_video_clips (nothing on the video track), corrupt_source, source_fetch_failed, rate_limited (too many exports this minute), export_timeout or ffmpeg_timeout (too long for one pass: split it), ffmpeg_failed or export_failed, storage_unconfigured.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({
      project_id: projectId,
      video_id: videoIdOf("The video to render; default: the project's first video."),
      fit: arg({ type: 'string', enum: [...EXPORT_FITS], default: 'fit', description: 'Clips of another shape: fit = letterbox or pillarbox with black bars; fill = scale and crop to fill the frame.' }),
    }, ['project_id']),
    output: out.exportOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    long: true,
    run: async ({ project_id, ...body }, ctx) => editor.exportVideo(ctx.bus, ctx.auth, project_id, body, opts(ctx, ctx.exportTimeoutMs)),
  },
  {
    name: 'video_editor_create_video',
    title: 'Add a video to a project',
    description: [
      "Add a video to a project: its own empty timeline and agent chat, in the project's aspect ratio, sharing the project's library and context (e.g. a second cut or another format of the same material). Free.",
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({ project_id: projectId, name: arg({ type: 'string', minLength: 1, maxLength: PROJECT_NAME_MAX, default: DEFAULT_VIDEO_NAME, description: `Video name, 1-${PROJECT_NAME_MAX} characters.` }) }, ['project_id']),
    output: out.videoOutput,
    annotations: EDIT,
    run: async ({ project_id, ...body }, ctx) => editor.createVideo(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_rename',
    title: 'Rename a project or a video',
    description: ['Rename the project, or one of its videos when video_id is given. Returns the renamed record (project or video). Free.', scopeLine(editor.EDITOR_WRITE)].join(' '),
    input: toolArgs({ project_id: projectId, video_id: videoIdOf('Rename this video instead of the project.'), name: videoName }, ['project_id', 'name']),
    output: out.renameOutput,
    annotations: SET,
    run: async ({ project_id, video_id, ...body }, ctx) =>
      // null means "not given", as everywhere in the API.
      video_id === undefined || video_id === null
        ? editor.renameProject(ctx.bus, ctx.auth, project_id, body, opts(ctx))
        : editor.renameVideo(ctx.bus, ctx.auth, project_id, video_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_import_asset',
    title: 'Import media into a project',
    description: [
      "Download an image, video or audio file from a public https URL into the project's library (source import), stored and served by this service.",
      'Returns the asset: its id (for video_editor_add_clip), kind, url and metadata (width, height, duration_sec, has_audio, source_url). Free.',
      'Private, loopback and metadata addresses are refused.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({ project_id: projectId, url: arg({ type: 'string', format: 'uri', maxLength: 4096, description: 'Public https URL of the file.' }) }, ['project_id', 'url']),
    output: out.assetOutput,
    annotations: { ...EDIT, openWorldHint: true },
    run: async ({ project_id, ...body }, ctx) => editor.importAsset(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_delete_asset',
    title: 'Delete an asset',
    description: [
      'Delete an asset from the library, with its media and every clip that used it (the tracks close up). Returns how many clips went. Cannot be undone. Free.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({ project_id: projectId, asset_id: arg({ type: 'string', maxLength: 100, description: 'Asset id (ast_...) from video_editor_get_state or video_editor_import_asset.' }) }, ['project_id', 'asset_id']),
    output: out.deleteAssetOutput,
    annotations: { ...EDIT, destructiveHint: true, idempotentHint: true },
    run: async ({ project_id, asset_id }, ctx) => editor.deleteAsset(ctx.bus, ctx.auth, project_id, asset_id, opts(ctx)),
  },
  {
    name: 'video_editor_add_clip',
    title: 'Place an asset on a timeline',
    description: [
      "Place a library asset on a track of a video's timeline. Pictures and videos go on the video track (played one after the other); sound goes on voice, sfx or music (mixed over the pictures).",
      'idx is the position on the track: absent or past the end appends; clips at or after it move one place right. Returns the clip (its id for video_editor_move_clip and video_editor_remove_clip). Free.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        video_id: videoIdOf("The video whose timeline gets the clip; default: the project's first video."),
        track: arg({ type: 'string', enum: [...TRACKS], description: 'video for pictures and videos; voice, sfx or music for sound.' }),
        asset_id: arg({ type: 'string', maxLength: 100, description: 'Asset id (ast_...) of this project.' }),
        idx: arg({ type: 'integer', minimum: 0, maximum: CLIP_IDX_CAP, description: 'Position on the track from 0; default: append.' }),
        duration_sec: arg({ type: 'number', minimum: 0.1, maximum: 600, description: "How long the clip plays (a still, or a cut of a longer source); default: the asset's own length, 3 s for stills." }),
        start_sec: arg({ type: 'number', minimum: 0, maximum: 3600, description: 'Sound tracks: when the clip starts on the timeline; default: with the video clip of the same idx.' }),
        volume: arg({ type: 'number', minimum: 0, maximum: 2, default: 1, description: '0-2; 1 = unchanged.' }),
      },
      ['project_id', 'track', 'asset_id'],
    ),
    output: out.clipOutput,
    annotations: EDIT,
    run: async ({ project_id, ...body }, ctx) => editor.addClip(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_move_clip',
    title: 'Move a clip',
    description: ['Move a clip to another position on its track (clamped to the end); the other clips close up around it. Returns the clip. Free.', scopeLine(editor.EDITOR_WRITE)].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        clip_id: arg({ type: 'string', maxLength: 100, description: 'Clip id (clp_...) from video_editor_get_state or video_editor_add_clip.' }),
        idx: arg({ type: 'integer', minimum: 0, maximum: CLIP_IDX_CAP, description: 'New position on the track, from 0.' }),
      },
      ['project_id', 'clip_id', 'idx'],
    ),
    output: out.clipOutput,
    annotations: SET,
    run: async ({ project_id, clip_id, ...body }, ctx) => editor.moveClip(ctx.bus, ctx.auth, project_id, clip_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_remove_clip',
    title: 'Remove a clip',
    description: ['Remove a clip from its timeline (its track is renumbered from 0). The asset stays in the library and can be placed again. Free.', scopeLine(editor.EDITOR_WRITE)].join(' '),
    input: toolArgs({ project_id: projectId, clip_id: arg({ type: 'string', maxLength: 100, description: 'Clip id (clp_...).' }) }, ['project_id', 'clip_id']),
    output: out.removeClipOutput,
    annotations: { ...EDIT, destructiveHint: true },
    run: async ({ project_id, clip_id }, ctx) => editor.removeClip(ctx.bus, ctx.auth, project_id, clip_id, opts(ctx)),
  },
  {
    name: 'video_editor_update_context',
    title: "Replace a project's context",
    description: [
      "Replace the project's context: markdown the editing agent reads on every turn (brief, audience, style, brand rules, decisions). Send the whole text; an empty string clears it. Returns the project. Free.",
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({ project_id: projectId, context_md: arg({ type: 'string', maxLength: CONTEXT_MD_MAX, description: `The new context, markdown, up to ${CONTEXT_MD_MAX} characters.` }) }, ['project_id', 'context_md']),
    output: out.projectOutput,
    annotations: SET,
    run: async ({ project_id, ...body }, ctx) => editor.updateContext(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_set_aspect_ratio',
    title: "Change a project's format",
    description: [
      'Set the aspect ratio of the project and of all its videos (and of videos created later); exports render in it. Returns the project. Free.',
      scopeLine(editor.EDITOR_WRITE),
    ].join(' '),
    input: toolArgs({ project_id: projectId, aspect_ratio: projectAspectRatio(`The format: ${list(PROJECT_ASPECT_RATIOS)}.`) }, ['project_id', 'aspect_ratio']),
    output: out.projectOutput,
    annotations: SET,
    run: async ({ project_id, ...body }, ctx) => editor.setAspectRatio(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
];
