import Joi from 'joi';
import { QUEUES } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/** One clip of a resolved timeline, as the editor hands it to the renderer. */
export interface TimelineClip {
  track: 'video' | 'voice' | 'sfx' | 'music';
  idx: number;
  /** Storage key of the source media. */
  storage_key: string;
  kind: 'image' | 'video' | 'audio' | 'export';
  /** Stills: how long they play (default 3 s); videos: a cut of their start; null: their own length. */
  duration_sec: number | null;
  /** Audio tracks: start on the timeline, seconds; null: with the video clip of the same idx. */
  start_sec: number | null;
  volume: number;
}

export interface RenderRequest {
  user_id: number;
  project_id: string;
  video_id: string;
  /** Output frame size (even numbers) from the project's aspect ratio. */
  width: number;
  height: number;
  fit: 'fit' | 'fill';
  clips: TimelineClip[];
  /** Where to store the mp4. */
  output_key: string;
}

export interface RenderReply {
  output_key: string;
  duration_sec: number;
  video_clip_count: number;
  audio_overlay_count: number;
  width: number;
  height: number;
  bytes: number;
}

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

const clip = Joi.object<TimelineClip>({
  track: Joi.string().valid('video', 'voice', 'sfx', 'music').required(),
  idx: Joi.number().integer().min(0).required(),
  storage_key: Joi.string().max(512).required(),
  kind: Joi.string().valid('image', 'video', 'audio', 'export').required(),
  duration_sec: Joi.number().min(0.1).max(600).allow(null).required(),
  start_sec: Joi.number().min(0).max(3600).allow(null).required(),
  volume: Joi.number().min(0).max(2).required(),
});

export const exportsRpc = {
  queue: QUEUES.exportsRpc,
  methods: {
    render: rpcMethod<RenderRequest, RenderReply>(
      'exports.render',
      Joi.object<RenderRequest>({
        user_id: Joi.number().integer().min(1).required(),
        project_id: Joi.string().max(100).required(),
        video_id: Joi.string().max(100).required(),
        width: Joi.number().integer().min(16).max(4096).multiple(2).required(),
        height: Joi.number().integer().min(16).max(4096).multiple(2).required(),
        fit: Joi.string().valid('fit', 'fill').required(),
        clips: Joi.array().items(clip).max(500).required(),
        output_key: Joi.string().max(512).required(),
      }),
    ),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
