import {
  EVENTS_PAGE_DEFAULT,
  eventIdOf,
  EXPORT_EVENT_TYPES,
  jobEventSchema,
  validateValue,
  type RecordTestEventRequest,
  JOB_EVENT_TYPES,
  rowIdOf,
  TERMINAL_EVENT_TYPES,
  webhookBody,
  type EventsPage,
  type ExportEventPayload,
  type ExportEventType,
  type Job,
  type JobEventPayload,
  type JobEventType,
  type ListEventsRequest,
  type LogEvent,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { toView } from '../domain/job';
import { findJob } from '../repositories/jobs.repository';
import { addTestEvent, listLogRows, type LogRow } from '../repositories/outbox.repository';
import type { JobsContext } from './context';

const TYPES: readonly string[] = JOB_EVENT_TYPES;
const EXPORT_TYPES: readonly string[] = EXPORT_EVENT_TYPES;

/**
 * A page of the user's event log (one job's, given job_id), oldest first after the cursor.
 * `next_cursor` is the last event's id when the page is full, null at the end (for now: a later
 * call with the last id seen returns what came since).
 */
export async function listEvents(ctx: JobsContext, req: ListEventsRequest): Promise<EventsPage> {
  const limit = req.limit ?? EVENTS_PAGE_DEFAULT;
  const rows = await listLogRows(ctx.db, {
    userId: req.user_id,
    after: req.after ? rowIdOf(req.after) : 0,
    limit,
    jobId: req.job_id,
  });
  const events: LogEvent[] = [];
  for (const row of rows) {
    const event = await toLogEvent(ctx, row);
    if (event) events.push(event);
  }
  const last = rows.at(-1);
  return { events, next_cursor: rows.length === limit && last ? eventIdOf(last.id) : null };
}

/**
 * Writes a test event (the gateway's sample job, for `mediaforge trigger`) into the user's log,
 * marked `test`: the relay publishes it like any event, so the user's streams (and `listen`) and
 * the key's webhook endpoint get it the way they get a real one.
 */
export async function recordTestEvent(ctx: JobsContext, req: RecordTestEventRequest): Promise<LogEvent> {
  const checked = validateValue(jobEventSchema, { ...req.sample, test: true });
  if (!checked.ok) throw AppError.badRequest(`the sample is not a job event: ${checked.error}`);
  const sample = checked.value as JobEventPayload;
  if (!sample.job || `job.${sample.status}` !== req.type || !sample.job_id.startsWith('job_test'))
    throw AppError.badRequest(`a ${req.type} test needs a job_test sample in that status, with its job`);
  const event = await toLogEvent(ctx, await addTestEvent(ctx.db, req.type, sample));
  if (!event) throw new Error('a test event just written is not in the log');
  return event;
}

async function toLogEvent(ctx: JobsContext, row: LogRow): Promise<LogEvent | null> {
  if (EXPORT_TYPES.includes(row.routing_key)) {
    const p = row.payload as ExportEventPayload;
    return {
      id: eventIdOf(row.id),
      type: row.routing_key as ExportEventType,
      created_at: row.created_at.toISOString(),
      project_id: p.project_id,
      export_id: p.export_id,
      data: p.export,
    };
  }
  if (!TYPES.includes(row.routing_key) || !row.job_id) return null;
  const payload = row.payload as JobEventPayload;
  const data = payload.job ?? (await legacyView(ctx, row.job_id, payload));
  if (!data) return null;
  const type = row.routing_key as JobEventType;
  return {
    id: eventIdOf(row.id),
    type,
    created_at: row.created_at.toISOString(),
    job_id: row.job_id,
    data,
    // Built from the stored payload by the dispatcher's own builder, so `listen` forwards what a delivery carries.
    ...(TERMINAL_EVENT_TYPES.includes(type) ? { webhook_body: webhookBody(payload) } : {}),
    ...(payload.test ? { test: true } : {}),
  };
}

/** An event written before events carried the Job: the job as it is now, in the event's status. */
async function legacyView(ctx: JobsContext, jobId: string, payload: JobEventPayload): Promise<Job | null> {
  const job = await findJob(ctx.db, jobId);
  if (!job) return null;
  const view = toView(job, ctx.settings.publicBaseUrl);
  return { ...view, status: payload.status, progress: payload.status === 'completed' ? 100 : null };
}
