import { EXPORT_EVENT_TYPES, JOB_EVENT_TYPES, listEventsQuery, triggerEventBody } from '@mf/contracts';
import {
  errorResponse,
  jsonContent,
  pathParam,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  type Json,
} from './openapi-helpers';
import type { Operation } from './operation';

const types = JOB_EVENT_TYPES.map((t) => `\`${t}\``).join(', ');
const exportTypes = EXPORT_EVENT_TYPES.map((t) => `\`${t}\``).join(', ');

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
  `Each event: \`event:\` one of ${types}; \`id:\` the event id; \`data:\` the Job object as JSON (the same as \`GET /api/v1/jobs/{id}\`). The user-wide stream also sends ${exportTypes} of background exports, whose \`data\` is the export (as \`GET /api/v1/media-studio/projects/{id}/exports/{exportId}\`).`,
  'A `:` comment every 15 seconds keeps the connection open. A reader that falls far behind is disconnected and resumes with `Last-Event-ID`.',
].join(' ');

/** The per-user event log and its server-sent event streams (docs/events.md). */
export const EVENT_OPERATIONS = [
  {
    id: 'listEvents',
    sdk: 'hand-written',
    method: 'get',
    path: '/events',
    summary: 'Read your event log',
    tag: 'Events',
    scope: 'jobs:read',
    description: [
      'Every change of every job of the key owner (processing, progress, completed, failed, cancelled), oldest first after the cursor `after`.',
      'Pass `next_cursor` as `after` for the next page; `next_cursor` is null at the end, and a later call with the last id seen returns what came since. Events are kept as long as jobs (about 30 days).',
    ].join(' '),
    query: listEventsQuery,
    reply: { status: 200, description: 'A page of events.', schema: 'EventsPage', noStore: 'reply' },
  },
  {
    id: 'streamEvents',
    sdk: 'hand-written',
    method: 'get',
    path: '/events/stream',
    summary: 'Stream your events (server-sent events)',
    tag: 'Events',
    scope: 'jobs:read',
    description: [
      'Every event of every job of the key owner as it happens, as `text/event-stream`; it does not end by itself.',
      'Without `Last-Event-ID` it starts with the next event; with it, it first sends every event after that one.',
      streamNote,
    ].join(' '),
    parameters: [lastEventId],
    reply: { status: 200, description: 'The event stream.', schema: { response: eventStream('The event stream.') } },
    statuses: streamLimits,
  },
  {
    id: 'triggerEvent',
    sdk: 'hand-written',
    method: 'post',
    path: '/events/trigger',
    summary: 'Send a test event through your event log (mediaforge trigger)',
    tag: 'Events',
    description: [
      'Records a sample `job.completed`, `job.failed` or `job.cancelled` in your event log, marked `test: true` (its `job_id` starts `job_test` and names no job), and answers with it.',
      'It then goes where every event goes, as `stripe trigger` does: your streams (so a running `mediaforge listen` forwards it) and this key’s webhook endpoint, both with the same body and the same `X-Service-Event-Id`, marked `X-Service-Test: true`.',
      'The endpoint gets it whatever its `events` filter, once, never retried; a key without an endpoint (or a disabled one) sends it to the streams only. `POST /api/v1/webhook/test` still sends a sample to the endpoint alone and answers with the attempt.',
    ].join(' '),
    body: triggerEventBody,
    reply: { status: 202, description: 'The test event, recorded; on its way.', schema: 'TriggerEventReply' },
  },
  {
    id: 'streamJobEvents',
    sdk: 'hand-written',
    method: 'get',
    path: '/jobs/{id}/events',
    summary: 'Stream a job’s events (server-sent events)',
    tag: 'Events',
    description: [
      'The job’s events as `text/event-stream`. The first event is the job’s current state (under the id of its latest event); then one event per change; the stream ends after `job.completed`, `job.failed` or `job.cancelled`.',
      'With `Last-Event-ID` it sends the job’s events after that one instead of the current state; at or past the job’s terminal event it is a 204 (no stream: nothing more will come).',
      'Same access as `GET /api/v1/jobs/{id}`: another user’s job is a 404 `Job not found`.',
      streamNote,
    ].join(' '),
    parameters: [pathParam('id', 'The job id.'), lastEventId],
    reply: {
      status: 200,
      description: 'The job’s event stream.',
      schema: { response: eventStream('The job’s event stream.') },
    },
    statuses: {
      '204': { description: '`Last-Event-ID` is at or past the finished job’s terminal event: nothing to stream.' },
      '404': errorResponse('`Job not found`.', ref('Error')),
      ...streamLimits,
    },
  },
] as const satisfies readonly Operation[];
