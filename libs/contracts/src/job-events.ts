import Joi from 'joi';
import type { JobEventPayload } from './generated/types';
import { JOB_SOURCES, jobView } from './jobs';
import { eventDef } from './event-def';
import { ROUTING_KEYS } from './names';

/**
 * Published by jobs on the `events` exchange for every change of a job: processing (accepted by an
 * upstream), progress, and the terminal states. Webhooks are sent for the terminal ones only.
 */
export const jobEventSchema = Joi.object({
  job_id: Joi.string().required(),
  user_id: Joi.number().integer().required(),
  api_key_id: Joi.number()
    .integer()
    .allow(null)
    .required()
    .description(
      'The API key the job was submitted with (webhooks are configured per key); null for a dashboard playground job.',
    ),
  status: Joi.string().valid('processing', 'completed', 'failed', 'cancelled').required(),
  model_id: Joi.string().required().description('Model id (vidgen-2.0, ...).'),
  upstream_model: Joi.string().required().description("Upstream endpoint path; the webhook body's `model`."),
  type: Joi.string().valid('video', 'image').required(),
  credits_consumed: Joi.number().integer().min(0).required(),
  created_at: Joi.string().isoDate().required(),
  completed_at: Joi.string().isoDate().allow(null).required(),
  result: Joi.alternatives(
    Joi.object({ video: Joi.string().required() }),
    Joi.object({ images: Joi.array().items(Joi.string()).required() }),
  )
    .allow(null)
    .required(),
  error: Joi.string().allow(null).required(),
  source: Joi.string()
    .valid(...JOB_SOURCES)
    .description(
      'api, editor or dashboard; editor jobs name their project. Optional: events written before these fields existed lack them.',
    ),
  project_id: Joi.string().allow(null),
  event_id: Joi.string()
    .pattern(/^evt_\d{16}$/)
    .description("The event log's id of this event (set by the outbox relay; absent in the stored row)."),
  job: jobView.description(
    'The Job object at this event (as GET /api/v1/jobs/:id): what streams send. Absent in events written before it existed.',
  ),
  test: Joi.boolean().description(
    'A test event (`mediaforge trigger`, POST /api/v1/events/trigger): a sample job in the shape of a real one, sent to the key’s endpoint marked `X-Service-Test: true`. Absent on real events.',
  ),
})
  .id('JobEventPayload')
  .meta({ className: 'JobEventPayload' });

export { eventDef, type EventDef } from './event-def';

export const jobEvents = {
  completed: eventDef<JobEventPayload>(ROUTING_KEYS.jobCompleted, jobEventSchema),
  failed: eventDef<JobEventPayload>(ROUTING_KEYS.jobFailed, jobEventSchema),
  cancelled: eventDef<JobEventPayload>(ROUTING_KEYS.jobCancelled, jobEventSchema),
  processing: eventDef<JobEventPayload>(ROUTING_KEYS.jobProcessing, jobEventSchema),
  progress: eventDef<JobEventPayload>(ROUTING_KEYS.jobProgress, jobEventSchema),
} as const;
