import { JOB_EVENT_TYPES, listEventsQuery } from '@mf/contracts';
import {
  errorResponse,
  jsonContent,
  noStoreHeader,
  ok,
  op,
  pathParam,
  queryParams,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  type Json,
} from './helpers';

/** The per-user event log and its server-sent event streams (docs/events.md). */

const types = JOB_EVENT_TYPES.map((t) => `\`${t}\``).join(', ');

const lastEventId: Json = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description:
    'Resume after this event id (EventSource sends it by itself on reconnect): every later event is sent once, none is missed. Not an event id: 400.',
  schema: { type: 'string', pattern: '^evt_\\d{16}$' },
};

/** An open stream: text/event-stream, one event per job change, a `:` comment heartbeat every 15 s. */
function eventStream(description: string): Json {
  return {
    description,
    headers: {
      ...requestIdHeader,
      ...rateLimitHeaders,
      'Cache-Control': { description: '`no-cache`.', schema: { type: 'string' } },
    },
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example:
          'event: job.progress\nid: evt_0000000000000042\ndata: {"job_id":"job_...","status":"processing","progress":40,...}\n\n',
      },
    },
  };
}

/** Over the API rate limit (the stream's opening counts as one request), or the key's open streams are at their limit. */
const streamLimits: Json = {
  '429': {
    description:
      'Over the API rate limit (`retry_after`; opening a stream counts as one request), or this key already holds 10 open streams, or its user 25 over all their keys.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('RateLimitError'), ref('Error')] }),
  },
};

const streamNote = [
  `Each event: \`event:\` one of ${types}; \`id:\` the event id; \`data:\` the Job object as JSON (the same as \`GET /api/v1/jobs/{id}\`).`,
  'A `:` comment every 15 seconds keeps the connection open. A reader that falls far behind is disconnected and resumes with `Last-Event-ID`.',
].join(' ');

export const eventPaths: Json = {
  '/api/v1/events': {
    get: op({
      id: 'listEvents',
      summary: 'Read your event log',
      tag: 'Events',
      scope: 'jobs:read',
      description: [
        'Every change of every job of the key owner (processing, progress, completed, failed, cancelled), oldest first after the cursor `after`.',
        'Pass `next_cursor` as `after` for the next page; `next_cursor` is null at the end, and a later call with the last id seen returns what came since. Events are kept as long as jobs (about 30 days).',
      ].join(' '),
      parameters: queryParams(listEventsQuery),
      responses: { '200': ok('A page of events.', ref('EventsPage'), noStoreHeader) },
    }),
  },
  '/api/v1/events/stream': {
    get: op({
      id: 'streamEvents',
      summary: 'Stream your events (server-sent events)',
      tag: 'Events',
      scope: 'jobs:read',
      description: [
        'Every event of every job of the key owner as it happens, as `text/event-stream`; it does not end by itself.',
        'Without `Last-Event-ID` it starts with the next event; with it, it first sends every event after that one.',
        streamNote,
      ].join(' '),
      parameters: [lastEventId],
      responses: { '200': eventStream('The event stream.'), ...streamLimits },
    }),
  },
  '/api/v1/jobs/{id}/events': {
    get: op({
      id: 'streamJobEvents',
      summary: 'Stream a job’s events (server-sent events)',
      tag: 'Events',
      description: [
        'The job’s events as `text/event-stream`. The first event is the job’s current state (under the id of its latest event); then one event per change; the stream ends after `job.completed`, `job.failed` or `job.cancelled`.',
        'With `Last-Event-ID` it sends the job’s events after that one instead of the current state; at or past the job’s terminal event it is a 204 (no stream: nothing more will come).',
        'Same access as `GET /api/v1/jobs/{id}`: another user’s job is a 404 `Job not found`.',
        streamNote,
      ].join(' '),
      parameters: [pathParam('id', 'The job id.'), lastEventId],
      responses: {
        '200': eventStream('The job’s event stream.'),
        '204': { description: '`Last-Event-ID` is at or past the finished job’s terminal event: nothing to stream.' },
        '404': errorResponse('`Job not found`.', ref('Error')),
        ...streamLimits,
      },
    }),
  },
};
