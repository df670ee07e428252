import Joi from 'joi';
import { ROUTING_KEYS } from './names';

/** Published by jobs on the `events` exchange when a job reaches a terminal state. */
export interface JobEventPayload {
  job_id: string;
  user_id: number;
  /** The API key the job was submitted with (webhooks are configured per key). */
  api_key_id: number;
  status: 'completed' | 'failed' | 'cancelled';
  /** Model id (vidgen-2.0, ...). */
  model_id: string;
  /** Upstream endpoint path; the webhook body's `model`, as the contract says. */
  upstream_model: string;
  type: 'video' | 'image';
  credits_consumed: number;
  created_at: string;
  completed_at: string | null;
  result: { video: string } | { images: string[] } | null;
  error: string | null;
}

export const jobEventSchema = Joi.object<JobEventPayload>({
  job_id: Joi.string().required(),
  user_id: Joi.number().integer().required(),
  api_key_id: Joi.number().integer().required(),
  status: Joi.string().valid('completed', 'failed', 'cancelled').required(),
  model_id: Joi.string().required(),
  upstream_model: Joi.string().required(),
  type: Joi.string().valid('video', 'image').required(),
  credits_consumed: Joi.number().integer().min(0).required(),
  created_at: Joi.string().isoDate().required(),
  completed_at: Joi.string().isoDate().allow(null).required(),
  result: Joi.object().allow(null).required(),
  error: Joi.string().allow(null).required(),
});

export interface EventDef<T> {
  readonly routingKey: string;
  readonly version: number;
  readonly schema: Joi.ObjectSchema<T>;
}

export const jobEvents = {
  completed: { routingKey: ROUTING_KEYS.jobCompleted, version: 1, schema: jobEventSchema },
  failed: { routingKey: ROUTING_KEYS.jobFailed, version: 1, schema: jobEventSchema },
  cancelled: { routingKey: ROUTING_KEYS.jobCancelled, version: 1, schema: jobEventSchema },
} as const satisfies Record<string, EventDef<JobEventPayload>>;
