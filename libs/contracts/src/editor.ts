import Joi from 'joi';
import { QUEUES } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/** Editor records (contract "Editor records"; extra timeline fields documented in docs/editor.md). */
export const PROJECT_ASPECT_RATIOS = ['9:16', '1:1', '4:5', '16:9', '4:3'] as const;
export type ProjectAspectRatio = (typeof PROJECT_ASPECT_RATIOS)[number];
export const TRACKS = ['video', 'voice', 'sfx', 'music'] as const;
export type Track = (typeof TRACKS)[number];

export interface ProjectView {
  id: string;
  name: string;
  aspect_ratio: ProjectAspectRatio;
  context_md: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectSummary {
  id: string;
  name: string;
  aspect_ratio: ProjectAspectRatio;
  updated_at: string;
}

export interface VideoView {
  id: string;
  name: string;
  aspect_ratio: ProjectAspectRatio;
  created_at: string;
}

export interface AssetView {
  id: string;
  /** image | video | audio | export */
  kind: string;
  /** generated | upload | import | tts | music | sfx | export */
  source: string;
  url: string;
  /** prompt, model, job_id, duration_sec, width, height, has_audio, ... */
  metadata: Record<string, unknown>;
}

export interface ClipView {
  id: string;
  video_id: string;
  track: Track;
  idx: number;
  asset_id: string;
  /** How long a still (or a cut of a longer source) plays, seconds; null: the asset's own length (3 s for stills). */
  duration_sec: number | null;
  /** Audio tracks: when the clip starts on the timeline, seconds; null: with the video clip of the same idx. */
  start_sec: number | null;
  /** 0-2, 1 = unchanged. */
  volume: number;
}

export interface AgentEvent {
  /** step | tool_call | tool_result | tool_error | media_generation | message */
  type: string;
  at: string;
  [field: string]: unknown;
}

export interface InstructReply {
  assistant_text: string;
  assets_created: AssetView[];
  clips_created: ClipView[];
  context_appended: boolean;
  aspect_ratio_changed: ProjectAspectRatio | null;
  media_gen_done: boolean;
  agent_events: AgentEvent[];
}

export interface ProjectStateReply {
  project: Pick<ProjectView, 'id' | 'name' | 'aspect_ratio' | 'context_md'>;
  videos: VideoView[];
  assets: AssetView[];
  clips: ClipView[];
}

/** One instruct turn of a video's chat thread, as the dashboard shows it. */
export interface ThreadTurn {
  id: string;
  instruction: string;
  /** null while the turn runs, and when it failed. */
  assistant_text: string | null;
  status: 'running' | 'done' | 'failed';
  created_at: string;
}

export interface ThreadsReply {
  /** Every video of the project (an empty array when it has no turns), turns oldest first. */
  threads: Record<string, ThreadTurn[]>;
}

/**
 * A string of min..max characters counted as people count them (Unicode code points), as the
 * gateway counts them: Joi's own max() counts UTF-16 units, so 120 emoji would pass the gateway
 * and fail here.
 */
const chars = (min: number, max: number) =>
  Joi.string()
    .min(min)
    .custom((value: string, helpers) => {
      const n = [...value].length;
      return n < min || n > max ? helpers.error('string.chars', { min, max }) : value;
    })
    .messages({ 'string.chars': '{{#label}} must be {{#min}}-{{#max}} characters' });

const userId = Joi.number().integer().min(1).required();
const id = (prefix: string) => Joi.string().pattern(new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`));
const projectRef = { user_id: userId, project_id: id('prj').required() };
const aspect = Joi.string().valid(...PROJECT_ASPECT_RATIOS);
const httpsUrl = Joi.string().uri({ scheme: ['https'] }).max(4096);

export interface ProjectRef {
  user_id: number;
  project_id: string;
}
export interface CreateProjectRequest {
  user_id: number;
  name: string;
  description: string | null;
  aspect_ratio: ProjectAspectRatio;
}
export interface GetProjectRequest extends ProjectRef {
  video_id?: string;
}
export interface InstructRequest extends ProjectRef {
  api_key_id: number;
  instruction: string;
  image_urls: string[];
  video_id?: string;
}
export interface CreateVideoRequest extends ProjectRef {
  name: string;
}
export interface RenameRequest extends ProjectRef {
  /** Renames this video; without it, the project. */
  video_id?: string;
  name: string;
}
export interface ImportAssetRequest extends ProjectRef {
  url: string;
}
export interface AssetRef extends ProjectRef {
  asset_id: string;
}
export interface AddClipRequest extends ProjectRef {
  video_id?: string;
  track: Track;
  asset_id: string;
  idx?: number;
  duration_sec?: number | null;
  start_sec?: number | null;
  volume?: number;
}
export interface ClipRef extends ProjectRef {
  clip_id: string;
}
export interface MoveClipRequest extends ClipRef {
  idx: number;
}
export interface UpdateContextRequest extends ProjectRef {
  context_md: string;
}
export interface SetAspectRatioRequest extends ProjectRef {
  aspect_ratio: ProjectAspectRatio;
}

export interface ExportRequest extends ProjectRef {
  video_id?: string;
  fit: 'fit' | 'fill';
}
/** The contract's export response. */
export interface ExportReply {
  asset_id: string;
  video_url: string;
  duration_sec: number;
  video_clip_count: number;
  audio_overlay_count: number;
}

export const editorRpc = {
  queue: QUEUES.editorRpc,
  methods: {
    createProject: rpcMethod<CreateProjectRequest, { project: ProjectView }>(
      'editor.create-project',
      Joi.object<CreateProjectRequest>({ user_id: userId, name: chars(1, 120).required(), description: chars(0, 1000).allow('', null).required(), aspect_ratio: aspect.required() }),
    ),
    listProjects: rpcMethod<{ user_id: number }, { projects: ProjectSummary[] }>('editor.list-projects', Joi.object({ user_id: userId })),
    getProject: rpcMethod<GetProjectRequest, ProjectStateReply>('editor.get-project', Joi.object<GetProjectRequest>({ ...projectRef, video_id: Joi.string().max(100) })),
    instruct: rpcMethod<InstructRequest, InstructReply>(
      'editor.instruct',
      Joi.object<InstructRequest>({
        ...projectRef,
        api_key_id: Joi.number().integer().min(1).required(),
        instruction: chars(0, 8000).allow('').required(),
        image_urls: Joi.array().items(httpsUrl).max(10).required(),
        video_id: Joi.string().max(100),
      }),
    ),
    createVideo: rpcMethod<CreateVideoRequest, { video: VideoView }>('editor.create-video', Joi.object<CreateVideoRequest>({ ...projectRef, name: chars(1, 120).required() })),
    rename: rpcMethod<RenameRequest, { project: ProjectView } | { video: VideoView }>(
      'editor.rename',
      Joi.object<RenameRequest>({ ...projectRef, video_id: Joi.string().max(100), name: chars(1, 120).required() }),
    ),
    importAsset: rpcMethod<ImportAssetRequest, { asset: AssetView }>('editor.import-asset', Joi.object<ImportAssetRequest>({ ...projectRef, url: httpsUrl.required() })),
    deleteAsset: rpcMethod<AssetRef, { deleted: boolean; clips_removed: number }>('editor.delete-asset', Joi.object<AssetRef>({ ...projectRef, asset_id: Joi.string().max(100).required() })),
    addClip: rpcMethod<AddClipRequest, { clip: ClipView }>(
      'editor.add-clip',
      Joi.object<AddClipRequest>({
        ...projectRef,
        video_id: Joi.string().max(100),
        track: Joi.string().valid(...TRACKS).required(),
        asset_id: Joi.string().max(100).required(),
        idx: Joi.number().integer().min(0).max(10_000),
        duration_sec: Joi.number().min(0.1).max(600).allow(null),
        start_sec: Joi.number().min(0).max(3600).allow(null),
        volume: Joi.number().min(0).max(2),
      }),
    ),
    moveClip: rpcMethod<MoveClipRequest, { clip: ClipView }>('editor.move-clip', Joi.object<MoveClipRequest>({ ...projectRef, clip_id: Joi.string().max(100).required(), idx: Joi.number().integer().min(0).max(10_000).required() })),
    removeClip: rpcMethod<ClipRef, { removed: boolean }>('editor.remove-clip', Joi.object<ClipRef>({ ...projectRef, clip_id: Joi.string().max(100).required() })),
    updateContext: rpcMethod<UpdateContextRequest, { project: ProjectView }>('editor.update-context', Joi.object<UpdateContextRequest>({ ...projectRef, context_md: chars(0, 100_000).allow('').required() })),
    setAspectRatio: rpcMethod<SetAspectRatioRequest, { project: ProjectView }>('editor.set-aspect-ratio', Joi.object<SetAspectRatioRequest>({ ...projectRef, aspect_ratio: aspect.required() })),
    threads: rpcMethod<ProjectRef, ThreadsReply>('editor.threads', Joi.object<ProjectRef>(projectRef)),
    export: rpcMethod<ExportRequest, ExportReply>('editor.export', Joi.object<ExportRequest>({ ...projectRef, video_id: Joi.string().max(100), fit: Joi.string().valid('fit', 'fill').required() })),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
