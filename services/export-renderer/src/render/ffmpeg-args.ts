import path from 'node:path';
import type { VideoSegment } from '../domain/timeline';

/** What every export's picture is: all normalised clips share it, so they join without re-encoding. */
export interface OutputSpec {
  width: number;
  height: number;
  fit: 'fit' | 'fill';
  fps: number;
}

/** ffmpeg input/output path: the file: prefix keeps names like "a:b" or "-x" from being misread. */
export function fileArg(file: string): string {
  return `file:${path.resolve(file)}`;
}

/** Threads of one ffmpeg: 1 when other renders keep the other cores busy (cheapest per frame), else ffmpeg's own choice. */
export type Threads = 1 | 'auto';

/**
 * The encoder settings of every normalised clip. `stitchable=1` makes x264 write the same SPS/PPS
 * whatever the content, which the concat demuxer's `-c copy` relies on (it keeps the first clip's
 * headers); the fixed colour tags keep the VUI identical whatever the source was tagged with.
 */
export function clipEncoderArgs(fps: number, threads: Threads = 'auto'): string[] {
  return [
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '21',
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-x264-params',
    'stitchable=1',
    '-g',
    String(fps * 2),
    ...(threads === 1 ? ['-threads', '1'] : []),
    '-color_primaries',
    'bt709',
    '-color_trc',
    'bt709',
    '-colorspace',
    'bt709',
    '-color_range',
    'tv',
    // One timebase for every clip (512 ticks a frame), so joined timestamps stay exact.
    '-video_track_timescale',
    String(fps * 512),
  ];
}

/** Scales to the frame: `fit` letterboxes/pillarboxes with black, `fill` covers and crops the centre. */
export function frameFilter(spec: OutputSpec): string {
  const { width: w, height: h } = spec;
  const base =
    spec.fit === 'fit'
      ? `scale=${w}:${h}:force_original_aspect_ratio=decrease:force_divisible_by=2,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black`
      : `scale=${w}:${h}:force_original_aspect_ratio=increase:force_divisible_by=2,crop=${w}:${h}`;
  return `${base},setsar=1,format=yuv420p,setparams=range=tv:color_primaries=bt709:color_trc=bt709:colorspace=bt709`;
}

/**
 * One ffmpeg that turns a clip's picture into the output spec: exactly `frames` frames at `fps` (a
 * short source holds its last frame). Its sound is made apart (audio-args.ts), so the soundtrack is
 * mixed while pictures are encoded. `-xerror` turns a decode error into a failure, so a damaged
 * source is reported instead of quietly ending early.
 */
export function videoArgs(
  segment: VideoSegment,
  input: string,
  spec: OutputSpec,
  threads: Threads,
  outFile: string,
): string[] {
  const { frames } = segment;
  const single = threads === 1 ? ['-threads', '1', '-filter_threads', '1'] : [];
  const source = segment.still
    ? ['-i', fileArg(input)]
    : // Read a little past the cut only: the rest of a long source is never decoded.
      ['-t', ((frames + 2) / spec.fps).toFixed(3), '-i', fileArg(input)];

  const picture = segment.still
    ? // Scaled once, then the one frame repeated: cheaper than decoding and scaling it per frame.
      `[0:v]${frameFilter(spec)},loop=loop=-1:size=1,setpts=N/(${spec.fps}*TB),fps=${spec.fps},trim=end_frame=${frames}[v]`
    : `[0:v]setpts=PTS-STARTPTS,fps=${spec.fps},${frameFilter(spec)},tpad=stop_mode=clone:stop=-1,trim=end_frame=${frames}[v]`;

  return [
    '-xerror',
    ...single,
    ...source,
    '-filter_complex',
    picture,
    '-map',
    '[v]',
    ...clipEncoderArgs(spec.fps, threads),
    '-map_metadata',
    '-1',
    '-f',
    'mov',
    '-y',
    fileArg(outFile),
  ];
}

/**
 * A picture already in the output spec (same H.264 headers as ours, size, rate and length; see
 * stream-copy.ts) is copied into the clip as it is, with the clips' common timebase.
 */
export function copyVideoArgs(input: string, spec: OutputSpec, outFile: string): string[] {
  return [
    '-xerror',
    '-i',
    fileArg(input),
    '-map',
    '0:v:0',
    '-c:v',
    'copy',
    '-video_track_timescale',
    String(spec.fps * 512),
    '-map_metadata',
    '-1',
    '-f',
    'mov',
    '-y',
    fileArg(outFile),
  ];
}

/** A concat demuxer list of these files (absolute paths, quoted as its syntax wants). */
export function concatList(files: string[]): string {
  return files.map((f) => `file '${path.resolve(f).replace(/'/g, "'\\''")}'\n`).join('');
}

/**
 * The last step, a remux: the clips' pictures joined by the concat demuxer and the mixed
 * soundtrack, both copied as they are (nothing is decoded or encoded), faststart mp4.
 */
export function joinArgs(listFile: string, soundtrack: string, outFile: string): string[] {
  return [
    '-f',
    'concat',
    '-safe',
    '0',
    '-protocol_whitelist',
    'file',
    '-i',
    fileArg(listFile),
    '-i',
    fileArg(soundtrack),
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-c',
    'copy',
    '-map_metadata',
    '-1',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    fileArg(outFile),
  ];
}
