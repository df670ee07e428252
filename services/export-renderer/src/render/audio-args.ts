import { SAMPLE_RATE, type TimelinePlan, type VideoSegment } from '../domain/timeline';
import { fileArg } from './ffmpeg-args';

/**
 * A video clip's own sound as 48 kHz stereo PCM of exactly its length in samples (cut, or padded
 * with silence when the sound is shorter than the picture). PCM joins sample-exactly, where AAC
 * pieces would each carry encoder priming. `-xerror`: a damaged source fails instead of going quiet.
 */
export function soundArgs(segment: VideoSegment, input: string, fps: number, outFile: string): string[] {
  const samples = (segment.frames * SAMPLE_RATE) / fps;
  return [
    '-xerror',
    '-t',
    ((segment.frames + 2) / fps).toFixed(3),
    '-i',
    fileArg(input),
    '-filter_complex',
    `[0:a]asetpts=PTS-STARTPTS,aresample=${SAMPLE_RATE},aformat=channel_layouts=stereo,apad,atrim=end_sample=${samples},aformat=sample_fmts=s16[a]`,
    '-map',
    '[a]',
    '-c:a',
    'pcm_s16le',
    '-ar',
    String(SAMPLE_RATE),
    '-ac',
    '2',
    '-map_metadata',
    '-1',
    '-f',
    'wav',
    '-y',
    fileArg(outFile),
  ];
}

/** Ducking: above about -36 dBFS of voice the music is compressed 10:1 (a -20 dBFS voice takes it down about 14 dB). */
const DUCK = 'sidechaincompress=threshold=0.015:ratio=10:attack=20:release=400:makeup=1';
const FLOAT_STEREO = `aformat=sample_fmts=fltp:sample_rates=${SAMPLE_RATE}:channel_layouts=stereo`;

/**
 * The overlays as one 48 kHz stereo float track of exactly the video's length: the voice and sfx
 * lines at their start, plus the looped music ducked under the voice, mixed without normalisation.
 * It depends on the overlays and where they sit only, so a re-export that changes a video clip
 * (of the same length) keeps it. `overlayInputs[j]` is the source of overlay j. `-xerror`: a
 * damaged voice or music file fails (and is named) instead of going quiet.
 */
export function overlayBusArgs(plan: TimelinePlan, overlayInputs: string[], outFile: string): string[] {
  const inputs: string[] = ['-xerror'];
  const graph: string[] = [];
  const total = plan.totalSamples;
  const bus: Record<'voice' | 'sfx' | 'music', string[]> = { voice: [], sfx: [], music: [] };
  plan.overlays.forEach((o, i) => {
    if (o.loop) inputs.push('-stream_loop', '-1');
    inputs.push('-i', fileArg(overlayInputs[i]));
    const label = `o${i}`;
    graph.push(
      `[${i}:a]asetpts=PTS-STARTPTS,aresample=${SAMPLE_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,volume=${o.clip.volume},` +
        `atrim=end_sample=${o.maxSamples},adelay=delays=${o.startSample}S:all=1[${label}]`,
    );
    bus[o.track].push(label);
  });

  // Each bus is padded (or cut) to the video's length: sidechaincompress stops with its shorter input.
  const mixBus = (labels: string[], out: string): void => {
    const mixed =
      labels.length === 1
        ? `[${labels[0]}]`
        : `${labels.map((l) => `[${l}]`).join('')}amix=inputs=${labels.length}:normalize=0:duration=longest,`;
    graph.push(`${mixed}apad,atrim=end_sample=${total}[${out}]`);
  };
  const parts: string[] = [];
  const ducking = bus.voice.length > 0 && bus.music.length > 0;
  if (bus.voice.length > 0) {
    mixBus(bus.voice, ducking ? 'voicebus' : 'voice');
    if (ducking) graph.push('[voicebus]asplit=2[voice][voicekey]');
    parts.push('[voice]');
  }
  if (bus.sfx.length > 0) {
    mixBus(bus.sfx, 'sfx');
    parts.push('[sfx]');
  }
  if (bus.music.length > 0) {
    mixBus(bus.music, ducking ? 'musicbus' : 'music');
    if (ducking) graph.push(`[musicbus][voicekey]${DUCK}[music]`);
    parts.push('[music]');
  }
  const mix =
    parts.length === 1 ? parts[0] : `${parts.join('')}amix=inputs=${parts.length}:normalize=0:duration=first,`;
  graph.push(`${mix}atrim=end_sample=${total},${FLOAT_STEREO}[bus]`);

  return [
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[bus]',
    '-c:a',
    'pcm_f32le',
    '-map_metadata',
    '-1',
    '-f',
    'wav',
    '-y',
    fileArg(outFile),
  ];
}

/**
 * The soundtrack: the clips' own sounds (each at its volume, silence for a clip without one)
 * joined end to end, plus the overlay bus when there is one, cut to the video's exact length and
 * encoded to AAC once. `sounds[i]` is segment i's PCM (soundArgs) or null.
 */
export function soundtrackArgs(
  plan: TimelinePlan,
  sounds: Array<string | null>,
  overlayBus: string | null,
  outFile: string,
): string[] {
  const inputs: string[] = [];
  const graph: string[] = [];
  const total = plan.totalSamples;
  const samplesPerFrame = SAMPLE_RATE / plan.fps;
  let next = 0;

  const pieces = plan.segments.map((segment, i) => {
    const label = `s${i}`;
    const file = sounds[i];
    if (file) {
      inputs.push('-i', fileArg(file));
      graph.push(`[${next++}:a]${FLOAT_STEREO},volume=${segment.clip.volume}[${label}]`);
    } else {
      graph.push(
        `anullsrc=r=${SAMPLE_RATE}:cl=stereo,atrim=end_sample=${segment.frames * samplesPerFrame},${FLOAT_STEREO}[${label}]`,
      );
    }
    return `[${label}]`;
  });
  graph.push(`${pieces.join('')}concat=n=${pieces.length}:v=0:a=1[clips]`);
  if (overlayBus) {
    inputs.push('-i', fileArg(overlayBus));
    graph.push(
      `[${next}:a]${FLOAT_STEREO}[bus]`,
      `[clips][bus]amix=inputs=2:normalize=0:duration=first,atrim=end_sample=${total},${FLOAT_STEREO}[aout]`,
    );
  } else {
    graph.push(`[clips]atrim=end_sample=${total},${FLOAT_STEREO}[aout]`);
  }

  return [
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[aout]',
    '-c:a',
    'aac',
    '-b:a',
    '192k',
    '-ar',
    String(SAMPLE_RATE),
    '-ac',
    '2',
    '-map_metadata',
    '-1',
    '-f',
    'mp4',
    '-y',
    fileArg(outFile),
  ];
}
