import { commonErrors, jsonContent, ok, ref, requestIdHeader, resp, type Json } from './openapi-helpers';

export const preferHeader = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description: '`respond-async`: render in the background and answer 202 at once (RFC 7240).',
  schema: { type: 'string', maxLength: 200 },
};

/** An export's errors have their own shape: `{error: <code>, message}` (ExportError; from 500 on with `request_id`). */
export const exportResponses: Json = {
  ...commonErrors,
  '200': ok('The exported video.', ref('ExportReply')),
  '202': ok(
    'With `Prefer: respond-async`: the export started in the background; follow it with GET .../exports/{exportId} or the event stream.',
    ref('ExportAccepted'),
  ),
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
    description: '`storage_unconfigured` or `export_unavailable`, or the editor did not answer in time.',
    headers: { ...requestIdHeader },
    content: jsonContent({ anyOf: [ref('ServerError'), ref('ExportServerError')] }),
  },
  '504': {
    description: '`export_timeout` or `ffmpeg_timeout`: too long to render in one pass; split it.',
    headers: { ...requestIdHeader },
    content: jsonContent(ref('ExportServerError')),
  },
};
