import { JOB_EVENT_TYPES } from '@mf/contracts';
import {
  commonErrors,
  errorResponse,
  jsonContent,
  ok,
  pathParam,
  rateLimitHeaders,
  ref,
  requestIdHeader,
  resp,
  type Json,
} from './openapi-helpers';

/** The parameters and responses several operations of the table share (table.ts). */

export const projectId = pathParam('id', 'Project id (`prj_` + 1-64 letters or digits).', {
  type: 'string',
  maxLength: 100,
});

/** An export's errors have their own shapes (`{error, code}` for the renderer's refusals). */
export const exportResponses: Json = {
  ...commonErrors,
  '200': ok('The exported video.', ref('ExportReply')),
  '400': {
    description: 'Validation error, or `no_video_clips`.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('Error'), ref('ExportError')] }),
  },
  '422': resp('ExportError'),
  '429': {
    description:
      'Over the API rate limit (`retry_after`), or too many exports for this user in the last minute (`rate_limited`).',
    headers: { ...requestIdHeader, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
    content: jsonContent({ anyOf: [ref('RateLimitError'), ref('ExportError')] }),
  },
  '500': {
    description: '`ffmpeg_failed` or `export_failed`, or an internal error.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }),
  },
  '502': {
    description: '`source_fetch_failed`.',
    headers: { ...requestIdHeader },
    content: jsonContent(ref('ExportServerError')),
  },
  '503': {
    description: '`storage_unconfigured`, or the editor did not answer in time.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }),
  },
  '504': {
    description: '`export_timeout` or `ffmpeg_timeout`: too long to render in one pass; split it.',
    headers: { ...requestIdHeader },
    content: jsonContent(ref('ExportServerError')),
  },
};

export const deliveryId = pathParam('id', 'A delivery `id` (a positive integer).', {
  type: 'string',
  pattern: '^[1-9][0-9]*$',
});
export const disabled = errorResponse(
  'The webhook endpoint is disabled after failing without a break (save its URL again to enable it), or the attempt was recorded without its body.',
  ref('Error'),
);
export const noWebhook = errorResponse(
  '`Delivery not found`, or `Webhook endpoint not found` (the key has no webhook URL).',
  ref('Error'),
);

const types = JOB_EVENT_TYPES.map((t) => `\`${t}\``).join(', ');

export const lastEventId: Json = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description:
    'Resume after this event id (EventSource sends it by itself on reconnect): every later event is sent once, none is missed. Not an event id: 400.',
  schema: { type: 'string', pattern: '^evt_\\d{16}$' },
};

/** An open stream: text/event-stream, one event per job change, a `:` comment heartbeat every 15 s. */
export function eventStream(description: string): Json {
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
export const streamLimits: Json = {
  '429': {
    description:
      'Over the API rate limit (`retry_after`; opening a stream counts as one request), or this key already holds 10 open streams.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('RateLimitError'), ref('Error')] }),
  },
};

export const streamNote = [
  `Each event: \`event:\` one of ${types}; \`id:\` the event id; \`data:\` the Job object as JSON (the same as \`GET /api/v1/jobs/{id}\`).`,
  'A `:` comment every 15 seconds keeps the connection open. A reader that falls far behind is disconnected and resumes with `Last-Event-ID`.',
].join(' ');
