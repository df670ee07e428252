import Joi from 'joi';
import { QUEUES } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/** Video parameters after validation: every default applied, the seed resolved. */
export interface VideoParams {
  prompt: string;
  image_url: string | null;
  fast: boolean;
  duration_seconds: 4 | 5 | 6 | 8 | 10 | 15;
  aspect_ratio: '16:9' | '9:16' | '1:1' | '4:3' | '3:4' | '21:9';
  resolution: '480p' | '720p';
  generate_audio: boolean;
  seed: number;
}

/** Image parameters after validation: every default applied, the seed resolved. */
export interface ImageParams {
  prompt: string;
  image_urls: string[];
  num_images: 1 | 2 | 3 | 4;
  aspect_ratio: '1:1' | '16:9' | '9:16' | '4:3' | '3:4';
  seed: number;
}

export type JobStatus = 'processing' | 'completed' | 'failed' | 'cancelled';
export type JobResult = { video: string } | { images: string[] } | null;

/**
 * A client's Idempotency-Key, digested by the gateway (with the request's fingerprint): a submit
 * whose key matches a job of the same user made within `window_hours` returns that job instead of
 * charging again, so a retry after an unknown outcome (a 503) is safe.
 */
export interface SubmitIdempotency {
  key: string;
  window_hours: number;
}

interface SubmitOwner {
  user_id: number;
  api_key_id: number;
  idempotency?: SubmitIdempotency;
}

export type SubmitJobRequest = (SubmitOwner & { type: 'video'; params: VideoParams }) | (SubmitOwner & { type: 'image'; params: ImageParams });

export interface SubmitJobReply {
  job_id: string;
  status: 'processing';
  /** Model id (vidgen-2.0, vidgen-2.0-fast, imagegen-2). */
  model: string;
  credits_consumed: number;
  credits_remaining: number;
}

/** The contract's Job object (model is the display name here). */
export interface JobView {
  job_id: string;
  status: JobStatus;
  model: string;
  type: 'video' | 'image';
  credits_consumed: number;
  created_at: string;
  completed_at: string | null;
  result: JobResult;
  error: string | null;
}

export interface JobRef {
  user_id: number;
  job_id: string;
}

export interface CancelJobReply {
  job_id: string;
  status: 'cancelled';
  refunded_credits: number;
}

/** For other services (the editor): a job's state with the storage keys of its outputs. */
export interface JobResultReply {
  job_id: string;
  status: JobStatus;
  type: 'video' | 'image';
  /** Storage keys of the outputs, in order, when completed. */
  result_keys: string[];
  error: string | null;
  credits_consumed: number;
}

/** A page of a user's jobs, newest first: `before` is the last job_id of the previous page. */
export interface ListJobsRequest {
  user_id: number;
  /** 1-100, default 50. */
  limit?: number;
  before?: string;
}

/** A Job object with the key it was submitted with (the dashboard shows which key made it). */
export type JobListItem = JobView & { api_key_id: number };

export interface ListJobsReply {
  jobs: JobListItem[];
}

/** An upstream provider says a job changed: a nudge to poll it now (the payload is not trusted). */
export interface ProviderCallbackRequest {
  job_id: string;
  token: string;
}

export const SEED_MAX = 4294967295;
const userId = Joi.number().integer().min(1).required();
const jobId = Joi.string().pattern(/^job_[A-Za-z0-9]{1,64}$/).required();
const httpsUrl = Joi.string().uri({ scheme: ['https'] }).max(4096);

const videoParams = Joi.object<VideoParams>({
  prompt: Joi.string().min(1).max(16000).required(),
  image_url: httpsUrl.allow(null).required(),
  fast: Joi.boolean().required(),
  duration_seconds: Joi.number().valid(4, 5, 6, 8, 10, 15).required(),
  aspect_ratio: Joi.string().valid('16:9', '9:16', '1:1', '4:3', '3:4', '21:9').required(),
  resolution: Joi.string().valid('480p', '720p').required(),
  generate_audio: Joi.boolean().required(),
  seed: Joi.number().integer().min(0).max(SEED_MAX).required(),
});

const imageParams = Joi.object<ImageParams>({
  prompt: Joi.string().min(1).max(16000).required(),
  image_urls: Joi.array().items(httpsUrl).max(9).required(),
  num_images: Joi.number().valid(1, 2, 3, 4).required(),
  aspect_ratio: Joi.string().valid('1:1', '16:9', '9:16', '4:3', '3:4').required(),
  seed: Joi.number().integer().min(0).max(SEED_MAX).required(),
});

export const jobsRpc = {
  queue: QUEUES.jobsRpc,
  methods: {
    submit: rpcMethod<SubmitJobRequest, SubmitJobReply>(
      'jobs.submit',
      Joi.object({
        user_id: userId,
        api_key_id: Joi.number().integer().min(1).required(),
        type: Joi.string().valid('video', 'image').required(),
        params: Joi.when('type', { is: 'video', then: videoParams.required(), otherwise: imageParams.required() }),
        idempotency: Joi.object({ key: Joi.string().pattern(/^[0-9a-f]{64}$/).required(), window_hours: Joi.number().integer().min(1).max(720).required() }),
      }) as unknown as Joi.ObjectSchema<SubmitJobRequest>,
    ),
    get: rpcMethod<JobRef, JobView>('jobs.get', Joi.object<JobRef>({ user_id: userId, job_id: jobId })),
    cancel: rpcMethod<JobRef, CancelJobReply>('jobs.cancel', Joi.object<JobRef>({ user_id: userId, job_id: jobId })),
    getResult: rpcMethod<JobRef, JobResultReply>('jobs.get-result', Joi.object<JobRef>({ user_id: userId, job_id: jobId })),
    list: rpcMethod<ListJobsRequest, ListJobsReply>(
      'jobs.list',
      Joi.object<ListJobsRequest>({ user_id: userId, limit: Joi.number().integer().min(1).max(100), before: Joi.string().pattern(/^job_[A-Za-z0-9]{1,64}$/) }),
    ),
    providerCallback: rpcMethod<ProviderCallbackRequest, { accepted: boolean }>(
      'jobs.provider-callback',
      Joi.object<ProviderCallbackRequest>({ job_id: jobId, token: Joi.string().max(200).required() }),
    ),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
