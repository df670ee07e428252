import type { ErrorKind } from '@mf/errors';
import Joi from 'joi';
import { editorFields, TRACKS } from './api/editor';
import type * as T from './generated/types';
import { QUEUES } from './names';
import { named } from './schema/rules';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/** The contract's export error codes (section 7, "Export errors"). */
export const EXPORT_ERROR_CODES = [
  'no_video_clips',
  'corrupt_source',
  'rate_limited',
  'ffmpeg_failed',
  'export_failed',
  'source_fetch_failed',
  'storage_unconfigured',
  'export_timeout',
  'ffmpeg_timeout',
  // Ours: the renderer could not be reached at all (503; docs/export.md).
  'export_unavailable',
] as const;
export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[number];

/**
 * The error kind of each export error code; at the HTTP edge these are the contract's statuses
 * (API.md section 7, "Export errors": 400, 422, 429, 500, 500, 502, 503, 504, 504; ours 503).
 */
export const EXPORT_ERROR_KIND: Record<ExportErrorCode, ErrorKind> = {
  no_video_clips: 'invalid',
  corrupt_source: 'unprocessable',
  rate_limited: 'rate_limited',
  ffmpeg_failed: 'internal',
  export_failed: 'internal',
  source_fetch_failed: 'upstream_failed',
  storage_unconfigured: 'unavailable',
  export_timeout: 'timed_out',
  ffmpeg_timeout: 'timed_out',
  export_unavailable: 'unavailable',
};

/** The body of an export error (contract section 7): the code and a message safe to show. */
export const exportError = named(
  Joi.object({
    error: Joi.string()
      .valid(...EXPORT_ERROR_CODES)
      .required(),
    message: Joi.string().required().description('Safe to show to an end user; never raw encoder output.'),
  }),
  'ExportError',
);
/** One clip of a resolved timeline, as the editor hands it to the renderer. */
export const timelineClip = named(
  Joi.object({
    track: Joi.string()
      .valid(...TRACKS)
      .required(),
    idx: Joi.number().integer().min(0).required(),
    storage_key: Joi.string().max(512).required().description('Storage key of the source media.'),
    kind: Joi.string().valid('image', 'video', 'audio', 'export').required(),
    duration_sec: editorFields.durationSec
      .allow(null)
      .required()
      .description('Stills: how long they play (default 3 s); videos: a cut of their start; null: their own length.'),
    start_sec: editorFields.startSec
      .allow(null)
      .required()
      .description('Audio tracks: start on the timeline, seconds; null: with the video clip of the same idx.'),
    volume: editorFields.volume.required(),
  }),
  'TimelineClip',
);

export const renderRequest = named(
  Joi.object({
    user_id: Joi.number().integer().min(1).required(),
    project_id: Joi.string().max(100).required(),
    video_id: Joi.string().max(100).required(),
    width: Joi.number()
      .integer()
      .min(16)
      .max(4096)
      .multiple(2)
      .required()
      .description("Output frame size (even numbers) from the project's aspect ratio."),
    height: Joi.number().integer().min(16).max(4096).multiple(2).required(),
    fit: editorFields.fit.required(),
    clips: Joi.array().items(timelineClip).max(500).required(),
    output_key: Joi.string().max(512).required().description('Where to store the mp4.'),
    export_id: Joi.string()
      .pattern(/^exp_[A-Za-z0-9]{1,64}$/)
      .description('A background export: its progress is published (exports.render.progress) under this id.'),
  }),
  'RenderRequest',
);

export const renderReply = named(
  Joi.object({
    output_key: Joi.string().required(),
    duration_sec: Joi.number().required(),
    video_clip_count: Joi.number().integer().required(),
    audio_overlay_count: Joi.number().integer().required(),
    width: Joi.number().integer().required(),
    height: Joi.number().integer().required(),
    bytes: Joi.number().integer().required(),
  }),
  'RenderReply',
);

export const exportsRpc = {
  queue: QUEUES.exportsRpc,
  methods: {
    render: rpcMethod<T.RenderRequest, T.RenderReply>('exports.render', renderRequest),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
