import { randomBytes } from 'node:crypto';
import { findModel, imageCost, videoCost, type ModelId } from '@mf/catalog';
import { IMAGE_MODEL, videoModelOf } from '@mf/contracts';
import type {
  CancelledBy,
  ImageParams,
  JobEventPayload,
  JobInput,
  JobResult,
  JobSource,
  JobStatus,
  Job,
  SubmitJobRequest,
  VideoParams,
} from '@mf/contracts';
import { fieldsOf, imageParams, videoParams } from '@mf/contracts';
import type { Mode } from '../providers/provider';
import type { AttemptRoute } from '../routing/routing';

export type InternalStatus = JobStatus | 'submitting' | 'rejected';

export interface JobRow {
  id: string;
  user_id: number;
  /** null only for a dashboard playground job. */
  api_key_id: number | null;
  type: 'video' | 'image';
  model_id: ModelId;
  upstream_model: string;
  params: VideoParams | ImageParams;
  cost: number;
  status: InternalStatus;
  provider: string;
  provider_request_id: string | null;
  /** video: [key]; image: [key, ...] */
  result_keys: string[] | null;
  error: string | null;
  refund_state: 'none' | 'pending' | 'done';
  /** Digest of the client's Idempotency-Key (and request) this job was submitted under, if any. */
  idempotency_key: string | null;
  source: JobSource;
  /** The editor project an editor job was made for. */
  project_id: string | null;
  cancelled_by: CancelledBy | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  deadline_at: Date;
  next_poll_at: Date | null;
  poll_failures: number;
  /** Number of the current (or last) attempt; 0 before the first. */
  attempt: number;
  /** The routes resolved at submit, tried in order, one attempt each. */
  routes: AttemptRoute[];
  /** The current attempt fails (next route) when still running then; null: only the job's deadline. */
  attempt_deadline_at: Date | null;
  /** The current attempt's progress, 0-100, when its provider tells; null otherwise. */
  progress: number | null;
  /** The upstream queue position before the current attempt starts, when its provider tells. */
  queue_position: number | null;
  /** When the last progress event was written (at most one a second). */
  progress_event_at: Date | null;
}

/** The current attempt's number; a job written before attempts were recorded has made one. */
export function currentAttempt(job: Pick<JobRow, 'attempt' | 'provider_request_id'>): number {
  return job.attempt || (job.provider_request_id ? 1 : 0);
}

/** Statuses a user can see; the others are internal to a submit. */
export const VISIBLE_STATUSES: readonly JobStatus[] = ['processing', 'completed', 'failed', 'cancelled'];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Opaque, unguessable ids: result URLs are derived from them. */
export function newJobId(): string {
  let id = '';
  for (const byte of randomBytes(32)) if (byte < 248 && id.length < 24) id += ALPHABET[byte % 62];
  return `job_${id}`;
}

export interface JobPlan {
  modelId: ModelId;
  mode: Mode;
  cost: number;
}

/** Model, mode and price of a request (contract section 1). */
export function planJob(req: SubmitJobRequest): JobPlan {
  if (req.type === 'video') {
    const p = req.params;
    const modelId: ModelId = videoModelOf(p.fast);
    return {
      modelId,
      mode: p.image_url ? 'image-to-video' : 'text-to-video',
      cost: videoCost(p.fast, p.duration_seconds, p.resolution),
    };
  }
  const p = req.params;
  return {
    modelId: IMAGE_MODEL,
    mode: p.image_urls.length ? 'image-edit' : 'text-to-image',
    cost: imageCost(p.num_images),
  };
}

/** The mode of a stored job. */
export function modeOf(job: Pick<JobRow, 'type' | 'params'>): Mode {
  if (job.type === 'video') return (job.params as VideoParams).image_url ? 'image-to-video' : 'text-to-video';
  return (job.params as ImageParams).image_urls.length ? 'image-edit' : 'text-to-image';
}

export function mediaUrl(publicBaseUrl: string, key: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/media/${key}`;
}

export function resultOf(row: Pick<JobRow, 'type' | 'status' | 'result_keys'>, publicBaseUrl: string): JobResult {
  if (row.status !== 'completed' || !row.result_keys?.length) return null;
  const urls = row.result_keys.map((k) => mediaUrl(publicBaseUrl, k));
  return row.type === 'video' ? { video: urls[0] } : { images: urls };
}

/**
 * The accepted input of a job, as it ran (defaults applied, the seed used), in the order of the
 * submit's fields: the fields of its type's params schema and no others. Nothing internal is
 * stored in params, but a field added there later must not leak into the API by accident.
 */
export function inputOf(row: Pick<JobRow, 'type' | 'params'>): JobInput {
  return inputBySchema(row.type === 'video' ? videoParams : imageParams, row.params) as unknown as JobInput;
}

/** The stored params cut to a params schema's fields, in its order (absent ones left out). */
export function inputBySchema(schema: Parameters<typeof fieldsOf>[0], stored: unknown): Record<string, unknown> {
  const params = (stored ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    fieldsOf(schema)
      .filter((f) => params[f] !== undefined)
      .map((f) => [f, params[f]]),
  );
}

/** The contract's Job object (model is the display name here) with its input, source and project. */
export function toView(row: JobRow, publicBaseUrl: string): Job {
  return {
    job_id: row.id,
    status: row.status as JobStatus,
    model: findModel(row.model_id)?.name ?? row.model_id,
    type: row.type,
    credits_consumed: row.cost,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
    result: resultOf(row, publicBaseUrl),
    error: row.status === 'failed' ? row.error : null,
    input: inputOf(row),
    source: row.source,
    project_id: row.project_id,
    progress: progressOf(row),
    ...(row.status === 'processing' && row.queue_position !== null && row.queue_position !== undefined
      ? { queue_position: row.queue_position }
      : {}),
  };
}

/** 100 once completed; the provider's figure while processing (null when it cannot tell); null otherwise. */
export function progressOf(row: Pick<JobRow, 'status' | 'progress'>): number | null {
  if (row.status === 'completed') return 100;
  if (row.status === 'processing') return row.progress ?? null;
  return null;
}

export function toEventPayload(row: JobRow, publicBaseUrl: string): JobEventPayload {
  const view = toView(row, publicBaseUrl);
  return {
    job_id: row.id,
    user_id: row.user_id,
    api_key_id: row.api_key_id,
    status: row.status as JobEventPayload['status'],
    model_id: row.model_id,
    upstream_model: row.upstream_model,
    type: row.type,
    credits_consumed: row.cost,
    created_at: view.created_at,
    completed_at: view.completed_at,
    result: view.result,
    error: view.error,
    source: row.source,
    project_id: row.project_id,
    job: view,
  };
}

/** What the charge's ledger line says: the model, and who made the job when it was not a key's request. */
export function chargeDescription(row: Pick<JobRow, 'model_id' | 'source'>): string {
  const by = row.source === 'editor' ? ' (editor)' : row.source === 'dashboard' ? ' (playground)' : '';
  return `${row.model_id} job${by}`;
}

/** What the refund's ledger line says (billing shows it as the entry's description). */
export function refundReason(row: Pick<JobRow, 'status' | 'cancelled_by'>): string {
  if (row.status === 'cancelled')
    return row.cancelled_by === 'editor'
      ? 'cancelled by the editor (the generation took too long)'
      : 'cancelled by you';
  if (row.status === 'failed') return 'job failed';
  // rejected: the provider refused the submit, or a crash interrupted it.
  return 'job could not be started';
}

/** The reference under which billing records this job's charge (and its refund). */
export function chargeReference(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * Storage key of the n-th output of a job's attempt. A first attempt's keys are the job's own; a
 * later attempt's are its own (`jobs/<id>/attempt-<n>/...`), so a late result of an attempt already
 * given up, stored while another attempt completes, can never overwrite the job's result.
 */
export function outputKey(jobId: string, type: 'video' | 'image', index: number, attempt = 1): string {
  const dir = attempt > 1 ? `jobs/${jobId}/attempt-${attempt}` : `jobs/${jobId}`;
  return type === 'video' ? `${dir}/video.mp4` : `${dir}/image-${index + 1}.png`;
}
