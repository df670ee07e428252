import Joi from 'joi';
import { named } from './schema/rules';

/**
 * An event id of the per-user event log: `evt_` and 16 digits, so ids sort the same as text and as
 * numbers (the jobs service's outbox row id underneath). Kept apart from event-log.ts so jobs.ts
 * can name the RPC without importing the Job view back.
 */
export const EVENT_ID = /^evt_\d{16}$/;

/** The log's event id of an outbox row id. */
export function eventIdOf(rowId: number | string): string {
  return `evt_${String(rowId).padStart(16, '0')}`;
}

/** The outbox row id of an event id (0 for one that is not an event id). */
export function rowIdOf(eventId: string): number {
  return EVENT_ID.test(eventId) ? Number(eventId.slice(4)) : 0;
}

/** GET /api/v1/events: 1-100 events a page, 50 when not said. */
export const EVENTS_PAGE_DEFAULT = 50;
export const EVENTS_PAGE_MAX = 100;

/** The jobs service's RPC: a user's events (one job's, given job_id), oldest first, after a cursor. */
export const listEventsRequest = named(
  Joi.object({
    user_id: Joi.number().integer().min(1).required(),
    after: Joi.string().pattern(EVENT_ID).description('The events after this one; from the oldest kept when absent.'),
    limit: Joi.number()
      .integer()
      .min(1)
      .max(EVENTS_PAGE_MAX)
      .description(`1-${EVENTS_PAGE_MAX}, default ${EVENTS_PAGE_DEFAULT}.`),
    job_id: Joi.string()
      .pattern(/^job_[A-Za-z0-9]{1,64}$/)
      .description('Only this job’s events.'),
  }),
  'ListEventsRequest',
);

/**
 * The jobs service's RPC: writes a test event (a sample job, built by the gateway) into the user's
 * log, from where it goes out as any event does. `sample` is a job event payload with its `job`;
 * the jobs service checks it against the job event schema (which this module cannot import: that
 * schema is built on the Job view, whose module names these RPCs).
 */
export const recordTestEventRequest = named(
  Joi.object({
    type: Joi.string().valid('job.completed', 'job.failed', 'job.cancelled').required(),
    sample: Joi.object().unknown(true).required().description('A JobEventPayload with `job`, for this user and key.'),
  }),
  'RecordTestEventRequest',
);
