import Joi from 'joi';
import { EVENT_ID, EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX } from './event-log-request';
import { EXPORT_EVENT_TYPES, exportStatus, type ExportEventType } from './export-status';
import { jobView } from './jobs';
import { named, says } from './schema/rules';

/**
 * The per-user event log (docs/events.md): every job state change and progress step, with an id that
 * sorts. Webhooks, the server-sent event streams and GET /api/v1/events read the same rows.
 */
export const JOB_EVENT_TYPES = [
  'job.processing',
  'job.progress',
  'job.completed',
  'job.failed',
  'job.cancelled',
] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];
/** Every type of the log: the jobs' events and the background exports'. */
export const LOG_EVENT_TYPES = [...JOB_EVENT_TYPES, ...EXPORT_EVENT_TYPES] as const;
export type LogEventType = JobEventType | ExportEventType;
/** Event types after which a job's stream ends. */
export const TERMINAL_EVENT_TYPES: readonly JobEventType[] = ['job.completed', 'job.failed', 'job.cancelled'];

export const logEvent = named(
  Joi.object({
    id: Joi.string().pattern(EVENT_ID).required().description('The event id (`evt_` and 16 digits): ids sort.'),
    type: Joi.string()
      .valid(...LOG_EVENT_TYPES)
      .required(),
    created_at: Joi.string().isoDate().required().description('ISO 8601, UTC.'),
    job_id: Joi.string().description('Job events: the job.'),
    project_id: Joi.string().description('Export events: the project.'),
    export_id: Joi.string().description('Export events: the export.'),
    data: Joi.alternatives(jobView, exportStatus)
      .required()
      .description(
        'Job events: the Job object as it was at this event (as GET /api/v1/jobs/:id). Export events: the export as it was (as GET /api/v1/media-studio/projects/:id/exports/:exportId).',
      ),
    webhook_body: Joi.string().description(
      'Terminal events only: the exact body a webhook delivery of this event carries (what `mediaforge listen` forwards).',
    ),
    test: Joi.boolean().description(
      'Only on test events (`mediaforge trigger`, POST /api/v1/events/trigger): `true`. Their `job_id` starts `job_test` and names no job.',
    ),
  }),
  'LogEvent',
);

/** POST /api/v1/events/trigger: the type of the sample event to record. */
export const triggerEventBody = named(
  Joi.object({
    type: says(
      Joi.string()
        .valid(...TERMINAL_EVENT_TYPES)
        .required(),
      `type must be one of ${TERMINAL_EVENT_TYPES.join(', ')}`,
    ).description('The event to record a sample of.'),
  }),
  'TriggerEventBody',
);

export const triggerEventReply = named(
  Joi.object({
    event: logEvent
      .required()
      .description('The test event as the log holds it (`test: true`); streams and the key’s endpoint get it next.'),
  }),
  'TriggerEventReply',
);

export const eventsPage = named(
  Joi.object({
    events: Joi.array().items(logEvent).required().description('Oldest first, after the cursor.'),
    next_cursor: Joi.string()
      .pattern(EVENT_ID)
      .allow(null)
      .required()
      .description('Pass as `after` for the next page; null at the end (for now).'),
  }),
  'EventsPage',
);

/** The query of GET /api/v1/events. */
export const listEventsQuery = named(
  Joi.object({
    after: says(Joi.string().pattern(EVENT_ID), 'after must be an event id (evt_...)').description(
      'An event id: the events after it. Absent: from the oldest kept (about 30 days).',
    ),
    limit: says(
      Joi.number().integer().min(1).max(EVENTS_PAGE_MAX).default(EVENTS_PAGE_DEFAULT),
      `limit must be an integer between 1 and ${EVENTS_PAGE_MAX}`,
    ).description(`Events per page, 1-${EVENTS_PAGE_MAX}.`),
  }),
  'ListEventsQuery',
);
