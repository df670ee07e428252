import path from 'node:path';
import { FfmpegError, runProcess } from './run';

export interface ProbeResult {
  /** Container duration in seconds; 0 when the container has none (a still image). */
  durationSec: number;
  /** ffprobe's format name, e.g. 'mov,mp4,m4a,3gp,3g2,mj2' or 'png_pipe'. */
  formatName: string;
  video?: { codec: string; width: number; height: number; fps: number };
  audio?: { codec: string; sampleRate: number; channels: number };
}

/** The file is not a decodable media file (or ffprobe could not be run on it). */
export class ProbeError extends Error {
  /** ffprobe's last stderr lines, for logs only. */
  readonly stderrTail: string;
  constructor(message: string, opts: { stderrTail?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ProbeError';
    this.stderrTail = opts.stderrTail ?? '';
  }
}

export interface ProbeOptions {
  ffprobePath: string;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Describes a local media file with `ffprobe -show_format -show_streams`. */
export async function probe(file: string, opts: ProbeOptions): Promise<ProbeResult> {
  // The file: prefix keeps a name such as "http:x" or "-y" from being read as a URL or option.
  const input = `file:${path.resolve(file)}`;
  let stdout: string;
  try {
    ({ stdout } = await runProcess(
      opts.ffprobePath,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', input],
      {
        timeoutMs: opts.timeoutMs ?? 30_000,
        signal: opts.signal,
        captureStdout: true,
        binary: 'ffprobe',
      },
    ));
  } catch (err) {
    if (err instanceof FfmpegError)
      throw new ProbeError(`cannot probe media: ${err.message}`, { stderrTail: err.stderrTail, cause: err });
    throw err;
  }
  return parseProbeOutput(stdout);
}

interface RawStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  disposition?: { attached_pic?: number };
}

interface RawProbe {
  format?: { format_name?: string; duration?: string };
  streams?: RawStream[];
}

/** Turns ffprobe's JSON into a ProbeResult; exported for unit tests. */
export function parseProbeOutput(json: string): ProbeResult {
  let raw: RawProbe;
  try {
    raw = JSON.parse(json) as RawProbe;
  } catch (cause) {
    throw new ProbeError('ffprobe output is not JSON', { cause });
  }
  const streams = raw.streams ?? [];
  if (!raw.format?.format_name) throw new ProbeError('no container format found');

  // Cover art in audio files shows up as a one-frame video stream: it is not video.
  const v = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1 && (s.width ?? 0) > 0);
  const a = streams.find((s) => s.codec_type === 'audio');
  if (!v && !a) throw new ProbeError('no decodable audio or video stream');

  const duration = Number.parseFloat(raw.format.duration ?? '');
  const result: ProbeResult = {
    durationSec: Number.isFinite(duration) ? duration : 0,
    formatName: raw.format.format_name,
  };
  if (v) {
    result.video = {
      codec: v.codec_name ?? 'unknown',
      width: v.width ?? 0,
      height: v.height ?? 0,
      fps: rate(v.avg_frame_rate) || rate(v.r_frame_rate),
    };
  }
  if (a) {
    result.audio = {
      codec: a.codec_name ?? 'unknown',
      sampleRate: Number.parseInt(a.sample_rate ?? '0', 10) || 0,
      channels: a.channels ?? 0,
    };
  }
  return result;
}

/** ffprobe rates are fractions ("24/1", "30000/1001", "0/0" when unknown). */
function rate(fraction: string | undefined): number {
  if (!fraction) return 0;
  const [num, den] = fraction.split('/').map(Number);
  if (!Number.isFinite(num) || !Number.isFinite(den) || !den) return 0;
  return num / den;
}
