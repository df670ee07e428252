// Request and response types of the mediaforge API, written from shared/spec/API.md and the
// documented choices in docs/ (api-behaviour.md, editor-api.md, export.md, webhooks.md).
// Field names are the API's own (snake_case).

export type JobStatus = 'processing' | 'completed' | 'failed' | 'cancelled';
export type MediaType = 'video' | 'image';
export type VideoAspectRatio = '16:9' | '9:16' | '1:1' | '4:3' | '3:4' | '21:9';
export type ImageAspectRatio = '1:1' | '16:9' | '9:16' | '4:3' | '3:4';
export type ProjectAspectRatio = '9:16' | '1:1' | '4:5' | '16:9' | '4:3';
export type Resolution = '480p' | '720p';
export type VideoDuration = 4 | 5 | 6 | 8 | 10 | 15;
export type Track = 'video' | 'voice' | 'sfx' | 'music';

// ---- models ----

export interface ModelParam {
  type: 'string' | 'integer' | 'boolean' | 'string[]';
  required: boolean;
  description: string;
  default?: unknown;
  enum?: unknown[];
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  min_items?: number;
  max_items?: number;
  format?: string;
}

export interface VideoModelCredits {
  base_per_second: number;
  per_second_by_resolution: Record<Resolution, number>;
  audio_surcharge_per_second: number;
  example_5s_with_audio: number;
}

export interface ImageModelCredits {
  per_image: number;
  example_1_image: number;
}

export interface Model {
  id: string;
  type: MediaType;
  name: string;
  provider: string;
  description: string;
  capabilities: string[];
  fal_endpoints: Record<string, string>;
  params: Record<string, ModelParam>;
  credits: VideoModelCredits | ImageModelCredits;
  submit_endpoint?: string;
}

export interface ListModelsResponse {
  models: Model[];
}

// ---- account ----

export interface Account {
  credits_remaining: number;
  credits_used_this_period: number;
  credits_total_this_period: number;
  api_key: { id: number; scopes: string[] };
}

// ---- generation ----

export interface GenerateVideoParams {
  prompt: string;
  image_url?: string;
  fast?: boolean;
  duration_seconds?: VideoDuration;
  aspect_ratio?: VideoAspectRatio;
  resolution?: Resolution;
  generate_audio?: boolean;
  seed?: number;
}

export interface GenerateImageParams {
  prompt: string;
  image_urls?: string[];
  num_images?: number;
  aspect_ratio?: ImageAspectRatio;
  seed?: number;
}

export interface SubmitResponse {
  job_id: string;
  status: 'processing';
  model: string;
  credits_consumed: number;
  credits_remaining: number;
  poll_url: string;
}

// ---- jobs ----

export type JobResult = { video: string } | { images: string[] };

export interface Job {
  job_id: string;
  status: JobStatus;
  model: string;
  type: MediaType;
  credits_consumed: number;
  created_at: string;
  completed_at: string | null;
  result: JobResult | null;
  error: string | null;
}

export interface CancelJobResponse {
  job_id: string;
  status: 'cancelled';
  refunded_credits: number;
}

// ---- editor records ----

export interface Project {
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

export interface Video {
  id: string;
  name: string;
  aspect_ratio: ProjectAspectRatio;
  created_at: string;
}

export interface Asset {
  id: string;
  kind: string;
  source: string;
  url: string;
  metadata: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface Clip {
  id: string;
  video_id: string;
  track: Track;
  idx: number;
  asset_id: string;
  duration_sec?: number | null;
  start_sec?: number | null;
  volume?: number | null;
  [extra: string]: unknown;
}

// ---- editor requests and responses ----

export interface CreateProjectParams {
  name?: string;
  description?: string;
  aspect_ratio?: ProjectAspectRatio;
}

export interface ProjectResponse {
  project: Project;
}

export interface ListProjectsResponse {
  projects: ProjectSummary[];
}

export interface GetProjectOptions {
  videoId?: string;
}

export interface ProjectState {
  project: Pick<Project, 'id' | 'name' | 'aspect_ratio' | 'context_md'>;
  videos: Video[];
  assets: Asset[];
  clips: Clip[];
}

export interface InstructParams {
  instruction?: string;
  image_urls?: string[];
  video_id?: string;
}

export interface InstructResponse {
  assistant_text: string;
  assets_created: Asset[];
  clips_created: Clip[];
  context_appended: boolean;
  aspect_ratio_changed: ProjectAspectRatio | null;
  media_gen_done: boolean;
  agent_events: unknown[];
}

export interface ExportParams {
  video_id?: string;
  fit?: 'fit' | 'fill';
}

export interface ExportResponse {
  asset_id: string;
  video_url: string;
  duration_sec: number;
  video_clip_count: number;
  audio_overlay_count: number;
}

export interface CreateVideoParams {
  name?: string;
}

export interface VideoResponse {
  video: Video;
}

export interface RenameParams {
  name: string;
}

export interface ImportAssetParams {
  url: string;
}

export interface AssetResponse {
  asset: Asset;
}

export interface DeleteAssetResponse {
  deleted: true;
  clips_removed: number;
}

export interface AddClipParams {
  video_id?: string;
  track: Track;
  asset_id: string;
  idx?: number;
  duration_sec?: number;
  start_sec?: number;
  volume?: number;
}

export interface ClipResponse {
  clip: Clip;
}

export interface MoveClipParams {
  idx: number;
}

export interface RemoveClipResponse {
  removed: true;
}

export interface UpdateContextParams {
  context_md: string;
}

export interface SetAspectRatioParams {
  aspect_ratio: ProjectAspectRatio;
}

// ---- errors ----

/** An error body: `{ error: <message>, ...optional fields }` (contract section 7). */
export interface ErrorBody {
  error: string;
  [field: string]: unknown;
}

export type ExportErrorCode =
  | 'no_video_clips'
  | 'corrupt_source'
  | 'rate_limited'
  | 'ffmpeg_failed'
  | 'export_failed'
  | 'source_fetch_failed'
  | 'storage_unconfigured'
  | 'export_unavailable'
  | 'export_timeout'
  | 'ffmpeg_timeout';

// ---- webhooks ----

export type WebhookEventType = 'job.completed' | 'job.failed' | 'job.cancelled';

export interface WebhookEvent {
  /** X-Service-Event */
  type: WebhookEventType;
  /** X-Service-Event-Id: the same for every attempt and copy of one event. */
  id: string | null;
  /** The `t` of the signature (Unix seconds). */
  timestamp: number;
  /** X-Service-Delivery-Attempt, when present. */
  attempt: number | null;
  /** The body: the Job object (model is the upstream endpoint path). */
  data: Job;
}
