import type { Bus } from '@mf/bus';
import {
  EVENT_ID,
  EVENTS_PAGE_MAX,
  jobsRpc,
  listEventsQuery,
  validateQuery,
  type Validated,
  type EventsPage,
  type ListEventsQuery,
  type LogEvent,
} from '@mf/contracts';
import { AppError } from '@mf/errors';
import { assertScope, type AuthContext } from '../auth/auth-context';
import { valid } from '../usecases/validated';
import type { StreamEvent } from './live-event';

/** The query of GET /api/v1/events, by its one definition (@mf/contracts event-log.ts). */
function validateListEventsQuery(query: Record<string, unknown>): Validated<ListEventsQuery> {
  return validateQuery(listEventsQuery, query);
}

export interface EventCallOptions {
  correlationId?: string;
}

/**
 * The user-wide log and stream show every job of the user (ids, inputs, result URLs), as listing
 * jobs does: they need the same scope. One job's stream follows GET /jobs/:id (the id is the capability).
 */
export const EVENT_LOG_SCOPE = 'jobs:read';

/** Throws the 403 of a key that may not read the user-wide log or stream. */
export function assertEventLogScope(auth: AuthContext): void {
  assertScope(auth, EVENT_LOG_SCOPE);
}

/** GET /api/v1/events: a page of the key's user's event log, oldest first after `after`. */
export async function listEvents(
  bus: Bus,
  auth: AuthContext,
  query: Record<string, unknown>,
  opts: EventCallOptions = {},
): Promise<EventsPage> {
  assertEventLogScope(auth);
  const q: ListEventsQuery = valid(validateListEventsQuery(query));
  return bus.rpc(
    jobsRpc,
    'events',
    { user_id: auth.userId, limit: q.limit, ...(q.after ? { after: q.after } : {}) },
    opts,
  );
}

/** A Last-Event-ID header as a resume point: absent is none; anything but an event id is a 400. */
export function resumePoint(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const id = header.trim();
  if (!EVENT_ID.test(id)) throw AppError.badRequest('Last-Event-ID must be an event id (evt_...)');
  return id;
}

export function toStreamEvent(e: LogEvent): StreamEvent {
  return { id: e.id, type: e.type, jobId: e.job_id, data: e.data };
}

/** Every event of the user (one job's, given jobId) after `after`, oldest first, page by page. */
export async function* readLog(
  bus: Bus,
  q: { userId: number; after?: string; jobId?: string },
  opts: EventCallOptions = {},
): AsyncGenerator<StreamEvent> {
  let after = q.after;
  for (;;) {
    const page = await bus.rpc(
      jobsRpc,
      'events',
      {
        user_id: q.userId,
        limit: EVENTS_PAGE_MAX,
        ...(after ? { after } : {}),
        ...(q.jobId ? { job_id: q.jobId } : {}),
      },
      opts,
    );
    for (const e of page.events) yield toStreamEvent(e);
    if (!page.next_cursor) return;
    after = page.next_cursor;
  }
}

/**
 * Whether a job's stream resumed after `after` has nothing left to send: the job is finished and
 * its log holds nothing after that id (its terminal event is at or before it). Such a request is a
 * 204, which also stops a browser's EventSource from reconnecting.
 */
export async function streamIsOver(
  bus: Bus,
  q: { userId: number; job: { job_id: string; status: string }; after: string },
  opts: EventCallOptions = {},
): Promise<boolean> {
  if (q.job.status === 'processing') return false;
  const page = await bus.rpc(
    jobsRpc,
    'events',
    { user_id: q.userId, limit: 1, after: q.after, job_id: q.job.job_id },
    opts,
  );
  return page.events.length === 0;
}
