import Joi from 'joi';
import {
  addClipBody,
  assetReply,
  clipReply,
  CLIP_IDX_CAP,
  CONTEXT_MD_MAX,
  createProjectBody,
  DEFAULT_PROJECT_ASPECT_RATIO,
  deleteAssetReply,
  DESCRIPTION_MAX,
  editorFields as F,
  exportReply,
  INSTRUCTION_MAX,
  INSTRUCT_IMAGE_URLS_MAX,
  instructReply,
  PROJECT_ASPECT_RATIOS,
  PROJECT_NAME_MAX,
  projectListReply,
  projectReply,
  projectStateReply,
  removeClipReply,
  renameReply,
  videoReply,
} from '@mf/contracts';
import * as editor from '../../core/usecases/editor.usecase';
import { toolArgs } from '../schemas';
import { EDIT, list, opts, READ_ONLY, scopeLine, SET, type ToolSpec } from './tool';

// The video editor. A project has a media library, a markdown context, and videos, each with a
// multi-track timeline (video, voice, sfx, music) and its own agent chat. Every argument is the
// REST body's field (@mf/contracts api/editor.ts) in the tool's own words.

const projectId = Joi.string()
  .pattern(editor.PROJECT_ID)
  .description('Project id (prj_...), as returned by video_editor_create_project or video_editor_list_projects.');
const videoIdOf = (what: string) =>
  F.videoId
    .max(100)
    .description(`Video id (vid_...) from video_editor_get_state or video_editor_create_video. ${what}`);
const recordId = (what: string) => Joi.string().max(100).description(what);
const WRITE = scopeLine(editor.EDITOR_WRITE);

export const EDITOR_TOOLS: readonly ToolSpec[] = [
  {
    name: 'video_editor_create_project',
    title: 'Create a video-editor project',
    description: [
      'Create a video-editor project: a media library, a markdown context for the editing agent, and one video named "Main video" (its own timeline with tracks video, voice, sfx and music).',
      'Returns the project; its id (prj_...) is the project_id of every other video_editor_* tool. Free.',
      'Next: video_editor_instruct to let the agent build it, or the direct edits (video_editor_import_asset, video_editor_add_clip, ...), then video_editor_export.',
      WRITE,
    ].join(' '),
    input: toolArgs({
      name: createProjectBody.extract('name').description(`Project name, 1-${PROJECT_NAME_MAX} characters.`),
      description: createProjectBody
        .extract('description')
        .description(
          `What the project is about, up to ${DESCRIPTION_MAX} characters (stored, not shown in the project record).`,
        ),
      aspect_ratio: createProjectBody
        .extract('aspect_ratio')
        .description(
          `Format of the project and its videos: ${list(PROJECT_ASPECT_RATIOS)}. Default ${DEFAULT_PROJECT_ASPECT_RATIO}.`,
        ),
    }),
    output: projectReply,
    annotations: EDIT,
    run: async (args, ctx) => editor.createProject(ctx.bus, ctx.auth, args, opts(ctx)),
  },
  {
    name: 'video_editor_list_projects',
    title: 'List video-editor projects',
    description: [
      "List every video-editor project of the key's owner (id, name, aspect_ratio, updated_at), most recently updated first. Free.",
      scopeLine(editor.EDITOR_READ),
    ].join(' '),
    input: toolArgs({}),
    output: projectListReply,
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
    input: toolArgs(
      {
        project_id: projectId,
        video_id: videoIdOf('Only the clips of this video; default: the clips of every video.'),
      },
      ['project_id'],
    ),
    output: projectStateReply,
    annotations: READ_ONLY,
    run: async ({ project_id, video_id }, ctx) =>
      editor.getProjectState(ctx.bus, ctx.auth, project_id, { video_id }, opts(ctx)),
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
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        instruction: F.instruction.description(
          `The request or reply, up to ${INSTRUCTION_MAX} characters. Required unless image_urls is given.`,
        ),
        image_urls: F.instructImageUrls.description(
          `Up to ${INSTRUCT_IMAGE_URLS_MAX} https URLs of reference images for this turn.`,
        ),
        video_id: videoIdOf(
          "The video whose timeline and chat this turn works on; default: the project's first video.",
        ),
      },
      ['project_id'],
    ),
    output: instructReply,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    long: true,
    run: async ({ project_id, ...body }, ctx) =>
      editor.instruct(ctx.bus, ctx.auth, project_id, body, opts(ctx, ctx.instructTimeoutMs)),
  },
  {
    name: 'video_editor_export',
    title: 'Export a video to mp4',
    description: [
      "Render a video's timeline (video track in order, voice, sfx and music mixed over it) into one mp4 and return its permanent https video_url (downloadable, embeddable); the export is also added to the library as an asset.",
      'Free. Synchronous: typically 30 s to 3 min; use a long request timeout.',
      'Errors carry a code and a message: no_video_clips (nothing on the video track), corrupt_source, source_fetch_failed, rate_limited (too many exports this minute), export_timeout or ffmpeg_timeout (too long for one pass: split it), ffmpeg_failed or export_failed, storage_unconfigured.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        video_id: videoIdOf("The video to render; default: the project's first video."),
        fit: F.fit
          .default('fit')
          .description(
            'Clips of another shape: fit = letterbox or pillarbox with black bars; fill = scale and crop to fill the frame.',
          ),
      },
      ['project_id'],
    ),
    output: exportReply,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    long: true,
    run: async ({ project_id, ...body }, ctx) =>
      editor.exportVideo(ctx.bus, ctx.auth, project_id, body, opts(ctx, ctx.exportTimeoutMs)),
  },
  {
    name: 'video_editor_create_video',
    title: 'Add a video to a project',
    description: [
      "Add a video to a project: its own empty timeline and agent chat, in the project's aspect ratio, sharing the project's library and context (e.g. a second cut or another format of the same material). Free.",
      WRITE,
    ].join(' '),
    input: toolArgs(
      { project_id: projectId, name: F.name.description(`Video name, 1-${PROJECT_NAME_MAX} characters.`) },
      ['project_id'],
    ),
    output: videoReply,
    annotations: EDIT,
    run: async ({ project_id, ...body }, ctx) => editor.createVideo(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_rename',
    title: 'Rename a project or a video',
    description: [
      'Rename the project, or one of its videos when video_id is given. Returns the renamed record (project or video). Free.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        video_id: videoIdOf('Rename this video instead of the project.'),
        name: F.name.description(`Name, 1-${PROJECT_NAME_MAX} characters, not blank.`),
      },
      ['project_id', 'name'],
    ),
    output: renameReply,
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
      WRITE,
    ].join(' '),
    input: toolArgs({ project_id: projectId, url: F.url.description('Public https URL of the file.') }, [
      'project_id',
      'url',
    ]),
    output: assetReply,
    annotations: { ...EDIT, openWorldHint: true },
    run: async ({ project_id, ...body }, ctx) => editor.importAsset(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_delete_asset',
    title: 'Delete an asset',
    description: [
      'Delete an asset from the library, with its media and every clip that used it (the tracks close up). Returns how many clips went. Cannot be undone. Free.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        asset_id: recordId('Asset id (ast_...) from video_editor_get_state or video_editor_import_asset.'),
      },
      ['project_id', 'asset_id'],
    ),
    output: deleteAssetReply,
    annotations: { ...EDIT, destructiveHint: true, idempotentHint: true },
    run: async ({ project_id, asset_id }, ctx) =>
      editor.deleteAsset(ctx.bus, ctx.auth, project_id, asset_id, opts(ctx)),
  },
  {
    name: 'video_editor_add_clip',
    title: 'Place an asset on a timeline',
    description: [
      "Place a library asset on a track of a video's timeline. Pictures and videos go on the video track (played one after the other); sound goes on voice, sfx or music (mixed over the pictures).",
      'idx is the position on the track: absent or past the end appends; clips at or after it move one place right. Returns the clip (its id for video_editor_move_clip and video_editor_remove_clip). Free.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        video_id: videoIdOf("The video whose timeline gets the clip; default: the project's first video."),
        track: addClipBody
          .extract('track')
          .description('video for pictures and videos; voice, sfx or music for sound.'),
        asset_id: recordId('Asset id (ast_...) of this project.'),
        idx: F.idx.max(CLIP_IDX_CAP).description('Position on the track from 0; default: append.'),
        duration_sec: F.durationSec.description(
          "How long the clip plays (a still, or a cut of a longer source); default: the asset's own length, 3 s for stills.",
        ),
        start_sec: F.startSec.description(
          'Sound tracks: when the clip starts on the timeline; default: with the video clip of the same idx.',
        ),
        volume: F.volume.default(1).description('0-2; 1 = unchanged.'),
      },
      ['project_id', 'track', 'asset_id'],
    ),
    output: clipReply,
    annotations: EDIT,
    run: async ({ project_id, ...body }, ctx) => editor.addClip(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_move_clip',
    title: 'Move a clip',
    description: [
      'Move a clip to another position on its track (clamped to the end); the other clips close up around it. Returns the clip. Free.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        clip_id: recordId('Clip id (clp_...) from video_editor_get_state or video_editor_add_clip.'),
        idx: F.idx.max(CLIP_IDX_CAP).description('New position on the track, from 0.'),
      },
      ['project_id', 'clip_id', 'idx'],
    ),
    output: clipReply,
    annotations: SET,
    run: async ({ project_id, clip_id, ...body }, ctx) =>
      editor.moveClip(ctx.bus, ctx.auth, project_id, clip_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_remove_clip',
    title: 'Remove a clip',
    description: [
      'Remove a clip from its timeline (its track is renumbered from 0). The asset stays in the library and can be placed again. Free.',
      WRITE,
    ].join(' '),
    input: toolArgs({ project_id: projectId, clip_id: recordId('Clip id (clp_...).') }, ['project_id', 'clip_id']),
    output: removeClipReply,
    annotations: { ...EDIT, destructiveHint: true },
    run: async ({ project_id, clip_id }, ctx) => editor.removeClip(ctx.bus, ctx.auth, project_id, clip_id, opts(ctx)),
  },
  {
    name: 'video_editor_update_context',
    title: "Replace a project's context",
    description: [
      "Replace the project's context: markdown the editing agent reads on every turn (brief, audience, style, brand rules, decisions). Send the whole text; an empty string clears it. Returns the project. Free.",
      WRITE,
    ].join(' '),
    input: toolArgs(
      {
        project_id: projectId,
        context_md: F.contextMd.description(`The new context, markdown, up to ${CONTEXT_MD_MAX} characters.`),
      },
      ['project_id', 'context_md'],
    ),
    output: projectReply,
    annotations: SET,
    run: async ({ project_id, ...body }, ctx) => editor.updateContext(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
  {
    name: 'video_editor_set_aspect_ratio',
    title: "Change a project's format",
    description: [
      'Set the aspect ratio of the project and of all its videos (and of videos created later); exports render in it. Returns the project. Free.',
      WRITE,
    ].join(' '),
    input: toolArgs(
      { project_id: projectId, aspect_ratio: F.aspectRatio.description(`The format: ${list(PROJECT_ASPECT_RATIOS)}.`) },
      ['project_id', 'aspect_ratio'],
    ),
    output: projectReply,
    annotations: SET,
    run: async ({ project_id, ...body }, ctx) => editor.setAspectRatio(ctx.bus, ctx.auth, project_id, body, opts(ctx)),
  },
];
