import Joi from 'joi';
import { editorFields as F, EXPORT_FITS, PROJECT_ASPECT_RATIOS, TRACKS } from './api/editor';
import type * as T from './generated/types';
import { agentEvent, TURN_STREAM_ID } from './turn-stream';
import { JOB_ID } from './jobs';
import { QUEUES } from './names';
import { httpsUrl, named } from './schema/rules';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/**
 * The editor's records (contract "Editor records"; extra timeline fields in docs/editor.md) and its
 * RPC methods. The request fields are the public bodies' own (api/editor.ts), so a value the
 * gateway accepts is one the editor accepts. Types: generated/types.ts, from these schemas.
 */

const timestamp = Joi.string().isoDate().description('ISO 8601, UTC.');
const aspect = Joi.string().valid(...PROJECT_ASPECT_RATIOS);

export const projectView = named(
  Joi.object({
    id: Joi.string().required(),
    name: Joi.string().required(),
    aspect_ratio: aspect.required(),
    context_md: Joi.string().allow('').required(),
    created_at: timestamp.required(),
    updated_at: timestamp.required(),
  }),
  'Project',
);

export const projectSummary = named(
  Joi.object({
    id: Joi.string().required(),
    name: Joi.string().required(),
    aspect_ratio: aspect.required(),
    updated_at: timestamp.required(),
  }),
  'ProjectSummary',
);

export const videoView = named(
  Joi.object({
    id: Joi.string().required(),
    name: Joi.string().required(),
    aspect_ratio: aspect.required(),
    created_at: timestamp.required(),
  }),
  'Video',
);

export const assetView = named(
  Joi.object({
    id: Joi.string().required(),
    kind: Joi.string().required().description('image | video | audio | export'),
    source: Joi.string().required().description('generated | upload | import | tts | music | sfx | export'),
    url: Joi.string().required().description('Permanent URL of the media, served by this deployment.'),
    metadata: Joi.object()
      .unknown(true)
      .required()
      .description('prompt, model, job_id, duration_sec, width, height, has_audio, ...'),
    created_at: timestamp.required().description('When it joined the library (an export: when it was rendered).'),
  }),
  'Asset',
);

export const clipView = named(
  Joi.object({
    id: Joi.string().required(),
    video_id: Joi.string().required(),
    track: Joi.string()
      .valid(...TRACKS)
      .required(),
    idx: Joi.number().integer().min(0).required(),
    asset_id: Joi.string().required(),
    duration_sec: Joi.number()
      .allow(null)
      .required()
      .description(
        "How long a still (or a cut of a longer source) plays, seconds; null: the asset's own length (3 s for stills).",
      ),
    start_sec: Joi.number()
      .allow(null)
      .required()
      .description(
        'Audio tracks: when the clip starts on the timeline, seconds; null: with the video clip of the same idx.',
      ),
    volume: Joi.number().min(0).max(2).required().description('0-2, 1 = unchanged.'),
  }),
  'Clip',
);

export const instructReply = named(
  Joi.object({
    assistant_text: Joi.string().allow('').required(),
    assets_created: Joi.array().items(assetView).required(),
    clips_created: Joi.array().items(clipView).required(),
    context_appended: Joi.boolean().required(),
    aspect_ratio_changed: aspect.allow(null).required(),
    media_gen_done: Joi.boolean().required(),
    agent_events: Joi.array().items(agentEvent).required(),
  }),
  'InstructReply',
);

export const projectStateReply = named(
  Joi.object({
    project: Joi.object({
      id: Joi.string().required(),
      name: Joi.string().required(),
      aspect_ratio: aspect.required(),
      context_md: Joi.string().allow('').required(),
    }).required(),
    videos: Joi.array().items(videoView).required(),
    assets: Joi.array().items(assetView).required(),
    clips: Joi.array().items(clipView).required(),
  }),
  'ProjectState',
);

/** One instruct turn of a video's chat thread, as the dashboard shows it. */
export const threadTurn = named(
  Joi.object({
    id: Joi.string().required(),
    instruction: Joi.string().allow('').required(),
    assistant_text: Joi.string()
      .allow('', null)
      .required()
      .description('null while the turn runs, and when it failed.'),
    status: Joi.string().valid('running', 'done', 'failed').required(),
    created_at: timestamp.required(),
  }),
  'ThreadTurn',
);

/** Every video of the project (an empty array when it has no turns), turns oldest first. */
export const threadsReply = named(
  Joi.object({ threads: Joi.object().pattern(/.*/, Joi.array().items(threadTurn)).required() }),
  'ThreadsReply',
);

/** The contract's export response. */
export const exportReply = named(
  Joi.object({
    asset_id: Joi.string().required(),
    video_url: Joi.string().required(),
    duration_sec: Joi.number().required(),
    video_clip_count: Joi.number().integer().required(),
    audio_overlay_count: Joi.number().integer().required(),
  }),
  'ExportReply',
);

// The replies of the editor's operations (REST bodies, RPC replies and MCP tool results alike).
export const projectReply = named(Joi.object({ project: projectView.required() }), 'ProjectReply');
export const projectListReply = named(
  Joi.object({ projects: Joi.array().items(projectSummary).required() }),
  'ProjectListReply',
);
export const videoReply = named(Joi.object({ video: videoView.required() }), 'VideoReply');
/** Renaming answers the renamed record: a project, or a video when video_id was given. */
export const renameReply = named(
  Joi.object({ project: projectView, video: videoView }).xor('project', 'video'),
  'RenameReply',
);
export const assetReply = named(Joi.object({ asset: assetView.required() }), 'AssetReply');
export const deleteAssetReply = named(
  Joi.object({ deleted: Joi.boolean().required(), clips_removed: Joi.number().integer().min(0).required() }),
  'DeleteAssetReply',
);
export const clipReply = named(Joi.object({ clip: clipView.required() }), 'ClipReply');
export const removeClipReply = named(Joi.object({ removed: Joi.boolean().required() }), 'RemoveClipReply');

// RPC requests: the owner, the record, then the public body's fields in their validated form.
const userId = Joi.number().integer().min(1).required();
const id = (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`));
const projectRefKeys = { user_id: userId, project_id: id('prj').required() };
const request = (className: string, keys: Record<string, Joi.Schema> = {}) =>
  named(Joi.object({ ...projectRefKeys, ...keys }), className);

export const projectRefSchema = request('ProjectRef');
const assetRef = request('AssetRef', { asset_id: F.assetId.max(100).required() });
const clipRef = request('ClipRef', { clip_id: Joi.string().max(100).required() });

const exportRequest = request('ExportRequest', { video_id: F.videoId.max(100), fit: F.fit.required() });

export const editorRpc = {
  queue: QUEUES.editorRpc,
  methods: {
    createProject: rpcMethod<T.CreateProjectRequest, T.ProjectReply>(
      'editor.create-project',
      named(
        Joi.object({
          user_id: userId,
          name: F.name.required(),
          description: F.description.allow(null).required(),
          aspect_ratio: F.aspectRatio.required(),
        }),
        'CreateProjectRequest',
      ),
    ),
    listProjects: rpcMethod<{ user_id: number }, T.ProjectListReply>(
      'editor.list-projects',
      Joi.object({ user_id: userId }),
    ),
    getProject: rpcMethod<T.GetProjectRequest, T.ProjectState>(
      'editor.get-project',
      request('GetProjectRequest', { video_id: F.videoId.max(100) }),
    ),
    instruct: rpcMethod<T.InstructRequest, T.InstructReply>(
      'editor.instruct',
      request('InstructRequest', {
        api_key_id: Joi.number()
          .integer()
          .min(1)
          .allow(null)
          .required()
          .description(
            "The calling API key (its limits apply to the turn's jobs); null for a turn of the dashboard session.",
          ),
        instruction: F.instruction.required(),
        image_urls: F.instructImageUrls.required(),
        video_id: F.videoId.max(100),
        stream_id: Joi.string()
          .pattern(TURN_STREAM_ID)
          .description('The turn is being streamed: its events are published as editor.turn.event under this id.'),
      }),
    ),
    createVideo: rpcMethod<T.CreateVideoRequest, T.VideoReply>(
      'editor.create-video',
      request('CreateVideoRequest', { name: F.name.required() }),
    ),
    rename: rpcMethod<T.RenameRequest, T.RenameReply>(
      'editor.rename',
      request('RenameRequest', {
        video_id: F.videoId.max(100).description('Renames this video; without it, the project.'),
        name: F.name.required(),
      }),
    ),
    importAsset: rpcMethod<T.ImportAssetRequest, T.AssetReply>(
      'editor.import-asset',
      request('ImportAssetRequest', { url: httpsUrl().required() }),
    ),
    importJobAsset: rpcMethod<T.ImportJobAssetRequest, T.AssetReply>(
      'editor.import-job-asset',
      request('ImportJobAssetRequest', {
        job_id: Joi.string().pattern(JOB_ID).required(),
        index: Joi.number().integer().min(0).required(),
      }),
    ),
    /** An upload the gateway streamed into media storage under `storage_key` (staged, deleted after). */
    importUpload: rpcMethod<T.ImportUploadRequest, T.AssetReply>(
      'editor.import-upload',
      request('ImportUploadRequest', {
        storage_key: Joi.string()
          .pattern(/^uploads\/[A-Za-z0-9-]{1,64}\.[a-z0-9]{1,5}$/)
          .required(),
        content_type: Joi.string().max(100).required().description("Told by the file's bytes."),
        filename: Joi.string().max(255).allow('').required().description('As sent; kept in metadata only.'),
      }),
    ),
    deleteAsset: rpcMethod<T.AssetRef, T.DeleteAssetReply>('editor.delete-asset', assetRef),
    addClip: rpcMethod<T.AddClipRequest, T.ClipReply>(
      'editor.add-clip',
      request('AddClipRequest', {
        video_id: F.videoId.max(100),
        track: F.track.required(),
        asset_id: F.assetId.max(100).required(),
        idx: F.idx,
        duration_sec: F.durationSec.allow(null),
        start_sec: F.startSec.allow(null),
        volume: F.volume,
      }),
    ),
    moveClip: rpcMethod<T.MoveClipRequest, T.ClipReply>(
      'editor.move-clip',
      request('MoveClipRequest', { clip_id: Joi.string().max(100).required(), idx: F.idx.required() }),
    ),
    removeClip: rpcMethod<T.ClipRef, T.RemoveClipReply>('editor.remove-clip', clipRef),
    updateContext: rpcMethod<T.UpdateContextRequest, T.ProjectReply>(
      'editor.update-context',
      request('UpdateContextRequest', { context_md: F.contextMd.required() }),
    ),
    setAspectRatio: rpcMethod<T.SetAspectRatioRequest, T.ProjectReply>(
      'editor.set-aspect-ratio',
      request('SetAspectRatioRequest', { aspect_ratio: F.aspectRatio.required() }),
    ),
    threads: rpcMethod<T.ProjectRef, T.ThreadsReply>('editor.threads', projectRefSchema),
    export: rpcMethod<T.ExportRequest, T.ExportReply>('editor.export', exportRequest),
    /** The same export in the background: checked now, rendered after the answer (docs/editor-api.md). */
    startExport: rpcMethod<T.ExportRequest, T.ExportAccepted>('editor.start-export', exportRequest),
    getExport: rpcMethod<T.ExportRef, T.ExportStatus>(
      'editor.get-export',
      request('ExportRef', { export_id: id('exp').required() }),
    ),
    listExports: rpcMethod<T.ProjectRef, T.ExportList>('editor.list-exports', projectRefSchema),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;

export { EXPORT_FITS, PROJECT_ASPECT_RATIOS, TRACKS };
