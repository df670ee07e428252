import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { findModel, imageCost, videoCost, type FalEndpoints, type ModelId } from '@mf/catalog';
import type { ImageParams, JobEventPayload, JobResult, JobStatus, JobView, SubmitJobRequest, VideoParams } from '@mf/contracts';

export type InternalStatus = JobStatus | 'submitting' | 'rejected';

export interface JobRow {
  id: string;
  user_id: number;
  api_key_id: number;
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
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  deadline_at: Date;
  next_poll_at: Date | null;
  poll_failures: number;
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
  upstreamModel: string;
  cost: number;
}

/** Model, upstream endpoint and price of a request (contract section 1). */
export function planJob(req: SubmitJobRequest, endpoints: FalEndpoints): JobPlan {
  if (req.type === 'video') {
    const p = req.params;
    const modelId: ModelId = p.fast ? 'vidgen-2.0-fast' : 'vidgen-2.0';
    const mode = p.image_url ? 'image-to-video' : 'text-to-video';
    return { modelId, upstreamModel: endpoints[modelId][mode], cost: videoCost(p.fast, p.duration_seconds, p.resolution) };
  }
  const p = req.params;
  const mode = p.image_urls.length ? 'image-edit' : 'text-to-image';
  return { modelId: 'imagegen-2', upstreamModel: endpoints['imagegen-2'][mode], cost: imageCost(p.num_images) };
}

export function mediaUrl(publicBaseUrl: string, key: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/media/${key}`;
}

export function resultOf(row: Pick<JobRow, 'type' | 'status' | 'result_keys'>, publicBaseUrl: string): JobResult {
  if (row.status !== 'completed' || !row.result_keys?.length) return null;
  const urls = row.result_keys.map((k) => mediaUrl(publicBaseUrl, k));
  return row.type === 'video' ? { video: urls[0] } : { images: urls };
}

/** The contract's Job object; model is the display name here. */
export function toView(row: JobRow, publicBaseUrl: string): JobView {
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
  };
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
  };
}

/** The reference under which billing records this job's charge (and its refund). */
export function chargeReference(jobId: string): string {
  return `job:${jobId}`;
}

/** A per-job token for the provider's completion callback URL. */
export function callbackToken(secret: string, jobId: string): string {
  return createHmac('sha256', secret).update(jobId).digest('base64url');
}

export function verifyCallbackToken(secret: string, jobId: string, token: string): boolean {
  const expected = Buffer.from(callbackToken(secret, jobId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Storage key of the n-th output. */
export function outputKey(jobId: string, type: 'video' | 'image', index: number): string {
  return type === 'video' ? `jobs/${jobId}/video.mp4` : `jobs/${jobId}/image-${index + 1}.png`;
}
