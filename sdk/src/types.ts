// Request and response types of the mediaforge API, named for SDK users. Every shape comes from
// generated/openapi.ts: openapi-typescript over the API's OpenAPI document, itself derived from
// the one joi definition of each request and response. Field names are the API's own (snake_case).
import type { components, paths } from './generated/openapi';

type Schemas = components['schemas'];
/** The JSON body a path and method take. */
type Body<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters a path's GET takes. */
type Query<P extends keyof paths> = paths[P]['get'] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

// ---- models ----
export type Model = Schemas['Model'];
export type ModelParam = Model['params'][string];
export type VideoModelCredits = Schemas['VideoCredits'];
export type ImageModelCredits = Schemas['ImageCredits'];
export type ListModelsResponse = Schemas['ModelList'];

// ---- account ----
export type Account = Schemas['Account'];

// ---- generation ----
export type GenerateVideoParams = Body<'/api/v1/video/vidgen-2/generate', 'post'>;
export type GenerateImageParams = Body<'/api/v1/image/imagegen/generate', 'post'>;
export type SubmitResponse = Schemas['GenerationAccepted'];
/** POST /api/v1/estimate: a submit's body plus `model`; answered with its price, nothing charged. */
export type EstimateParams = Body<'/api/v1/estimate', 'post'>;
export type EstimateResponse = Schemas['EstimateReply'];

export type VideoAspectRatio = NonNullable<GenerateVideoParams['aspect_ratio']>;
export type ImageAspectRatio = NonNullable<GenerateImageParams['aspect_ratio']>;
export type Resolution = NonNullable<GenerateVideoParams['resolution']>;
export type VideoDuration = NonNullable<GenerateVideoParams['duration_seconds']>;

// ---- jobs ----
export type Job = Schemas['Job'];
export type JobStatus = Job['status'];
export type MediaType = Job['type'];
export type JobResult = NonNullable<Job['result']>;
/** Who made a job: a request with an API key, the video editor (for project_id), or the dashboard's playground. */
export type JobSource = Job['source'];
/** A video job's accepted input, as it ran: defaults applied, the seed used. */
export type VideoJobInput = Schemas['VideoParams'];
/** An image job's accepted input, as it ran: defaults applied, the seed used. */
export type ImageJobInput = Schemas['ImageParams'];
/** GET /api/v1/jobs (scope jobs:read). */
export type ListJobsParams = Query<'/api/v1/jobs'>;
export type ListJobsResponse = Schemas['JobsPage'];
export type CancelJobResponse = Schemas['CancelJobReply'];

// ---- editor records ----
export type Project = Schemas['Project'];
export type ProjectSummary = Schemas['ProjectSummary'];
export type Video = Schemas['Video'];
export type Asset = Schemas['Asset'];
export type Clip = Schemas['Clip'];
export type ProjectAspectRatio = Project['aspect_ratio'];
export type Track = Clip['track'];

// ---- editor requests and responses ----
export type CreateProjectParams = Body<'/api/v1/media-studio/projects', 'post'>;
export type ProjectResponse = Schemas['ProjectReply'];
export type ListProjectsResponse = Schemas['ProjectListReply'];
export interface GetProjectOptions {
  videoId?: string;
}
export type ProjectState = Schemas['ProjectState'];
export type InstructParams = Body<'/api/v1/media-studio/projects/{id}/instruct', 'post'>;
export type InstructResponse = Schemas['InstructReply'];
export type ExportParams = Body<'/api/v1/media-studio/projects/{id}/export', 'post'>;
export type ExportResponse = Schemas['ExportReply'];
export type CreateVideoParams = Body<'/api/v1/media-studio/projects/{id}/videos', 'post'>;
export type VideoResponse = Schemas['VideoReply'];
export type RenameParams = Body<'/api/v1/media-studio/projects/{id}', 'patch'>;
export type ImportAssetParams = Body<'/api/v1/media-studio/projects/{id}/assets', 'post'>;
export type AssetResponse = Schemas['AssetReply'];
export type DeleteAssetResponse = Schemas['DeleteAssetReply'];
export type AddClipParams = Body<'/api/v1/media-studio/projects/{id}/clips', 'post'>;
export type ClipResponse = Schemas['ClipReply'];
export type MoveClipParams = Body<'/api/v1/media-studio/projects/{id}/clips/{clipId}', 'patch'>;
export type RemoveClipResponse = Schemas['RemoveClipReply'];
export type UpdateContextParams = Body<'/api/v1/media-studio/projects/{id}/context', 'put'>;
export type SetAspectRatioParams = Body<'/api/v1/media-studio/projects/{id}/aspect-ratio', 'put'>;

// ---- errors ----
/** An error body: `{ error: <message>, ...optional fields }` (contract section 7). */
export type ErrorBody = Schemas['Error'] & Record<string, unknown>;
export type ExportErrorCode = Schemas['ExportError']['error'];

// ---- webhooks ----
export type WebhookEventType = 'job.completed' | 'job.failed' | 'job.cancelled';
/** A webhook body: the contract's Job fields (model is the upstream endpoint path), then `source` and `project_id`. */
export type WebhookJob = Schemas['WebhookPayload'];

export interface WebhookEvent {
  /** X-Service-Event */
  type: WebhookEventType;
  /** X-Service-Event-Id: the same for every attempt and copy of one event. */
  id: string | null;
  /** The `t` of the signature (Unix seconds). */
  timestamp: number;
  /** X-Service-Delivery-Attempt, when present. */
  attempt: number | null;
  /** The body: the Job object (model is the upstream endpoint path), without `input`. */
  data: WebhookJob;
}

/** The events of a job (server-sent events and the event log, docs/events.md). */
export type JobEventType = Extract<Schemas['LogEvent']['type'], `job.${string}`>;
/** The events of a background export (the user's stream and the event log). */
export type ExportEventType = Extract<Schemas['LogEvent']['type'], `export.${string}`>;
/** A background export as GET /media-studio/projects/:id/exports/:exportId answers it. */
export type ExportStatus = Schemas['ExportStatus'];
/** One streamed event: its id (resume after it with Last-Event-ID), its type, the Job at that moment. */
export interface JobEvent {
  id: string | null;
  type: JobEventType;
  data: Job;
}
/** One streamed export event: the export at that moment. */
export interface ExportEvent {
  id: string | null;
  type: ExportEventType;
  data: ExportStatus;
}
/** What the user's stream sends: job and background export events. */
export type StreamedEvent = JobEvent | ExportEvent;
/** Whether a streamed event is a job's (else a background export's). */
export function isJobEvent(e: StreamedEvent): e is JobEvent {
  return e.type.startsWith('job.');
}
export type LogEvent = Schemas['LogEvent'];
export type EventsPage = Schemas['EventsPage'];
/** POST /api/v1/events/trigger: the test event as recorded in the log. */
export type TriggerEventResponse = Schemas['TriggerEventReply'];
/** The events `trigger` can record a sample of. */
export type TriggerEventType = Body<'/api/v1/events/trigger', 'post'>['type'];
