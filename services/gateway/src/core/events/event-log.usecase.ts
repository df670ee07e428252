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
import type { AuthContext } from '../auth/auth-context';
import { valid } from '../usecases/validated';
import type { StreamEvent } from './live-event';

/** The query of GET /api/v1/events, by its one definition (@mf/contracts event-log.ts). */
function validateListEventsQuery(query: Record<string, unknown>): Validated<ListEventsQuery> {
  return validateQuery(listEventsQuery, query);
}

export interface EventCallOptions {
  correlationId?: string;
}

/** GET /api/v1/events: a page of the key's user's event log, oldest first after `after`. */
export async function listEvents(
  bus: Bus,
  auth: AuthContext,
  query: Record<string, unknown>,
  opts: EventCallOptions = {},
): Promise<EventsPage> {
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
