import path from 'node:path';
import { SAMPLE_RATE, type AudioOverlay, type TimelinePlan, type VideoSegment } from '../domain/timeline';

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

/**
 * The encoder settings of every normalised clip. `stitchable=1` makes x264 write the same SPS/PPS
 * whatever the content, which the concat demuxer's `-c copy` relies on (it keeps the first clip's
 * headers); the fixed colour tags keep the VUI identical whatever the source was tagged with.
 */
export function clipEncoderArgs(fps: number): string[] {
  return [
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '21', '-profile:v', 'high', '-pix_fmt', 'yuv420p',
    '-x264-params', 'stitchable=1', '-g', String(fps * 2),
    '-color_primaries', 'bt709', '-color_trc', 'bt709', '-colorspace', 'bt709', '-color_range', 'tv',
    // PCM joins sample-exactly; AAC segments would each carry encoder priming and click at the seams.
    '-c:a', 'pcm_s16le', '-ar', String(SAMPLE_RATE), '-ac', '2',
    // One timebase for every clip (512 ticks a frame), so joined timestamps stay exact.
    '-video_track_timescale', String(fps * 512),
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
 * One ffmpeg that turns a clip into the output spec: exactly `frames` frames at `fps` (a short
 * source holds its last frame) and exactly the matching number of stereo 48 kHz samples (silence
 * when the clip has none), its volume applied. `-xerror` turns a decode error into a failure, so a
 * damaged source is reported instead of quietly ending early.
 */
export function normaliseArgs(segment: VideoSegment, spec: OutputSpec, outFile: string): string[] {
  const { frames } = segment;
  const samples = (frames * SAMPLE_RATE) / spec.fps;
  const input = segment.still
    ? ['-i', fileArg(segment.source.path)]
    : // Read a little past the cut only: the rest of a long source is never decoded.
      ['-t', ((frames + 2) / spec.fps).toFixed(3), '-i', fileArg(segment.source.path)];

  const picture = segment.still
    ? // Scaled once, then the one frame repeated: cheaper than decoding and scaling it per frame.
      `[0:v]${frameFilter(spec)},loop=loop=-1:size=1,setpts=N/(${spec.fps}*TB),fps=${spec.fps},trim=end_frame=${frames}[v]`
    : `[0:v]setpts=PTS-STARTPTS,fps=${spec.fps},${frameFilter(spec)},tpad=stop_mode=clone:stop=-1,trim=end_frame=${frames}[v]`;
  const sound = segment.hasAudio
    ? `[0:a]asetpts=PTS-STARTPTS,aresample=${SAMPLE_RATE},aformat=channel_layouts=stereo,volume=${segment.clip.volume},apad,atrim=end_sample=${samples},aformat=sample_fmts=s16[a]`
    : `anullsrc=r=${SAMPLE_RATE}:cl=stereo,atrim=end_sample=${samples},aformat=sample_fmts=s16[a]`;

  return [
    '-xerror',
    ...input,
    '-filter_complex', `${picture};${sound}`,
    '-map', '[v]', '-map', '[a]',
    ...clipEncoderArgs(spec.fps),
    '-map_metadata', '-1',
    '-f', 'mov', '-y', fileArg(outFile),
  ];
}

/** A concat demuxer list of these files (absolute paths, quoted as its syntax wants). */
export function concatList(files: string[]): string {
  return files.map((f) => `file '${path.resolve(f).replace(/'/g, "'\\''")}'\n`).join('');
}

/** Ducking: above about -36 dBFS of voice the music is compressed 10:1 (a -20 dBFS voice takes it down about 14 dB). */
const DUCK = 'sidechaincompress=threshold=0.015:ratio=10:attack=20:release=400:makeup=1';

/**
 * The last pass: the joined clips' video copied as is, and the audio built from the joined clip
 * sound + the voice and sfx lines at their start + the looped music ducked under the voice, mixed
 * without normalisation and cut to the video's exact length; AAC, faststart mp4.
 */
export function finalArgs(plan: TimelinePlan, listFile: string, outFile: string): string[] {
  const inputs = ['-f', 'concat', '-safe', '0', '-protocol_whitelist', 'file', '-i', fileArg(listFile)];
  const graph: string[] = [];
  const total = plan.totalSamples;
  const bus: Record<'voice' | 'sfx' | 'music', string[]> = { voice: [], sfx: [], music: [] };

  plan.overlays.forEach((o: AudioOverlay, i) => {
    if (o.loop) inputs.push('-stream_loop', '-1');
    inputs.push('-i', fileArg(o.source.path));
    const label = `o${i}`;
    graph.push(
      `[${i + 1}:a]asetpts=PTS-STARTPTS,aresample=${SAMPLE_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,volume=${o.clip.volume},` +
        `atrim=end_sample=${o.maxSamples},adelay=delays=${o.startSample}S:all=1[${label}]`,
    );
    bus[o.track].push(label);
  });

  // Each bus is padded (or cut) to the video's length: sidechaincompress stops with its shorter input.
  const mixBus = (labels: string[], out: string): void => {
    const mixed = labels.length === 1 ? `[${labels[0]}]` : `${labels.map((l) => `[${l}]`).join('')}amix=inputs=${labels.length}:normalize=0:duration=longest,`;
    graph.push(`${mixed}apad,atrim=end_sample=${total}[${out}]`);
  };
  const finalInputs = ['[clips]'];
  graph.push(`[0:a]aformat=sample_fmts=fltp:channel_layouts=stereo[clips]`);
  const ducking = bus.voice.length > 0 && bus.music.length > 0;
  if (bus.voice.length > 0) {
    mixBus(bus.voice, ducking ? 'voicebus' : 'voice');
    if (ducking) graph.push('[voicebus]asplit=2[voice][voicekey]');
    finalInputs.push('[voice]');
  }
  if (bus.sfx.length > 0) {
    mixBus(bus.sfx, 'sfx');
    finalInputs.push('[sfx]');
  }
  if (bus.music.length > 0) {
    mixBus(bus.music, ducking ? 'musicbus' : 'music');
    if (ducking) graph.push(`[musicbus][voicekey]${DUCK}[music]`);
    finalInputs.push('[music]');
  }
  const mix = finalInputs.length === 1 ? '[clips]' : `${finalInputs.join('')}amix=inputs=${finalInputs.length}:normalize=0:duration=first,`;
  graph.push(`${mix}atrim=end_sample=${total},aformat=sample_fmts=fltp:sample_rates=${SAMPLE_RATE}:channel_layouts=stereo[aout]`);

  return [
    ...inputs,
    '-filter_complex', graph.join(';'),
    '-map', '0:v', '-map', '[aout]',
    '-c:v', 'copy',
    '-c:a', 'aac', '-b:a', '192k', '-ar', String(SAMPLE_RATE), '-ac', '2',
    '-map_metadata', '-1',
    '-movflags', '+faststart',
    '-f', 'mp4', '-y', fileArg(outFile),
  ];
}
