import {
  createProjectBody,
  DEFAULT_PROJECT_ASPECT_RATIO,
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
  renameReply,
  videoReply,
} from '@mf/contracts';
import * as editor from '../../core/usecases/editor.usecase';
import { toolArgs } from '../schemas';
import { scopeOf } from '../../operations/table';
import { EDIT, list, opts, READ_ONLY, scopeLine, SET, type ToolSpec } from './tool';

import { projectId, videoIdOf, WRITE } from './editor-args';
import { EDITOR_LIBRARY_TOOLS } from './editor-library.tools';
import { followedExport, followedInstruct } from './followed-calls';

// The video editor. A project has a media library, a markdown context, and videos, each with a
// multi-track timeline (video, voice, sfx, music) and its own agent chat. Every argument is the
// REST body's field (@mf/contracts api/editor.ts) in the tool's own words.

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
      scopeLine(scopeOf('listProjects')),
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
      scopeLine(scopeOf('listProjects')),
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
      'Synchronous and slow: typically 5-180 s, up to about 5 min with a video generation; use a long request timeout (with a progressToken, a progress notification for each step of the agent and each percent of a generation, and at least every 10 s), or call it as a task.',
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
    followed: async ({ project_id, ...body }, ctx, step) => followedInstruct(ctx, project_id, body, step),
  },
  {
    name: 'video_editor_export',
    title: 'Export a video to mp4',
    description: [
      "Render a video's timeline (video track in order, voice, sfx and music mixed over it) into one mp4 and return its permanent https video_url (downloadable, embeddable); the export is also added to the library as an asset.",
      'Free. Synchronous: typically 30 s to 3 min; use a long request timeout (with a progressToken, progress notifications carry the percent rendered), or call it as a task.',
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
    followed: async ({ project_id, ...body }, ctx, step) => followedExport(ctx, project_id, body, step),
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
  ...EDITOR_LIBRARY_TOOLS,
];
