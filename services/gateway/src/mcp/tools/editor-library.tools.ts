import {
  addClipBody,
  assetReply,
  clipReply,
  CLIP_IDX_CAP,
  CONTEXT_MD_MAX,
  deleteAssetReply,
  editorFields as F,
  PROJECT_ASPECT_RATIOS,
  projectReply,
  removeClipReply,
} from '@mf/contracts';
import * as editor from '../../core/usecases/editor.usecase';
import * as mediaIn from '../../core/usecases/editor-media-in.usecase';
import { toolArgs } from '../schemas';
import { EDIT, list, opts, SET, type ToolSpec } from './tool';

import { projectId, recordId, videoIdOf, WRITE } from './editor-args';

/** The editor's library and timeline tools: assets, clips, the context and the format. */
export const EDITOR_LIBRARY_TOOLS: readonly ToolSpec[] = [
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
    run: async ({ project_id, ...body }, ctx) =>
      mediaIn.importAsset(ctx.bus, ctx.auth, project_id, body, opts(ctx, ctx.importTimeoutMs)),
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
