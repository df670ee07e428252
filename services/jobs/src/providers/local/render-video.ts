import { runFfmpeg, seededRandom } from '@mf/media';
import {
  BITEXACT_ARGS,
  drawtextFilter,
  fileArg,
  layoutPrompt,
  palette,
  referenceInputArgs,
  withScratch,
} from './render-common';

export interface RenderVideoOptions {
  outFile: string;
  width: number;
  height: number;
  durationSeconds: number;
  /** Default 24. */
  fps?: number;
  prompt: string;
  seed: number;
  audio: boolean;
  /** A local image file: animated (slow zoom and pan) instead of the generated background. */
  referenceImage?: string;
  ffmpegPath: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Font for the prompt (default DejaVu Sans). */
  fontFile?: string;
  /** Called as ffmpeg encodes, with the fraction of the video written (0..1). */
  onProgress?: (fraction: number) => void;
}

const SAMPLE_RATE = 48_000;
/**
 * Encoder threads are fixed: x264's output depends on its thread count, so a fixed count keeps
 * renders byte-identical across machines.
 */
const ENCODER_THREADS = '2';

/**
 * Renders an H.264/AAC mp4 of exactly `durationSeconds * fps` frames, deterministically: the same
 * options give the same bytes. Text-to-video draws moving seed-coloured gradients; with a
 * reference image the image is zoomed and panned. The prompt is drawn over either.
 */
export async function renderVideo(opts: RenderVideoOptions): Promise<void> {
  const fps = opts.fps ?? 24;
  if (!Number.isInteger(fps) || fps <= 0) throw new RangeError('fps must be a positive integer');
  if (opts.width % 2 !== 0 || opts.height % 2 !== 0 || opts.width <= 0 || opts.height <= 0)
    throw new RangeError('width and height must be positive and even');
  if (!(opts.durationSeconds > 0)) throw new RangeError('durationSeconds must be positive');

  const frames = Math.round(opts.durationSeconds * fps);
  const exactDuration = frames / fps;
  const rand = seededRandom(opts.seed);
  const layout = layoutPrompt(opts.prompt, opts.width, opts.height);
  const text = drawtextFilter(layout, opts.fontFile);

  const inputs: string[] = [];
  const graph: string[] = [];
  const { width: w, height: h } = opts;

  let videoChain: string;
  if (opts.referenceImage) {
    inputs.push(...referenceInputArgs(opts.referenceImage));
    // Upscaled twice first: zoompan moves in whole pixels, which judders on a frame-sized source.
    const zoomIn = rand() < 0.5;
    const zoom = zoomIn ? `1+0.15*on/${frames}` : `1.15-0.15*on/${frames}`;
    const panX = (rand() * 2 - 1).toFixed(3);
    const panY = (rand() * 2 - 1).toFixed(3);
    videoChain = [
      `[0:v]scale=${2 * w}:${2 * h}:force_original_aspect_ratio=increase:flags=bicubic`,
      `crop=${2 * w}:${2 * h}`,
      'setsar=1',
      `zoompan=z='${zoom}':x='(iw-iw/zoom)*(0.5+${panX}*(on/${frames}-0.5))':y='(ih-ih/zoom)*(0.5+${panY}*(on/${frames}-0.5))':d=${frames}:s=${w}x${h}:fps=${fps}`,
    ].join(',');
  } else {
    const colours = palette(rand, 3);
    // Only the cheap gradient types, drawn at half size and upscaled: gradients are smooth, so
    // this looks the same and costs a quarter (circular and spiral cost several times more).
    const type = rand() < 0.5 ? 'linear' : 'radial';
    const speed = (0.01 + rand() * 0.03).toFixed(4);
    const cs = colours.map((c, i) => `c${i}=${c}`).join(':');
    videoChain =
      `gradients=s=${Math.ceil(w / 2)}x${Math.ceil(h / 2)}:r=${fps}:seed=${opts.seed >>> 0}:speed=${speed}:n=${colours.length}:${cs}:type=${type}` +
      `,scale=${w}:${h}:flags=bilinear`;
  }
  videoChain += `,trim=end_frame=${frames},setsar=1,format=yuv420p`;
  if (text) videoChain += `,${text}`;
  graph.push(`${videoChain}[v]`);

  if (opts.audio) graph.push(audioGraph(rand, opts.seed, Math.round(exactDuration * SAMPLE_RATE), exactDuration));

  const args = [
    ...inputs,
    '-filter_complex_threads',
    ENCODER_THREADS,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[v]',
    ...(opts.audio ? ['-map', '[a]'] : []),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-threads:v',
    ENCODER_THREADS,
    '-pix_fmt',
    'yuv420p',
    '-profile:v',
    'high',
    '-g',
    String(fps * 2),
    '-r',
    String(fps),
    ...(opts.audio ? ['-c:a', 'aac', '-b:a', '128k', '-ar', String(SAMPLE_RATE), '-ac', '2'] : ['-an']),
    ...BITEXACT_ARGS,
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    fileArg(opts.outFile),
  ];

  const onProgress = opts.onProgress;
  await withScratch(opts.outFile, layout.text, (cwd) =>
    runFfmpeg(args, {
      ffmpegPath: opts.ffmpegPath,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      cwd,
      onProgress: onProgress ? (us) => onProgress(Math.min(1, us / 1e6 / exactDuration)) : undefined,
    }),
  );
}

/**
 * A soft seed-chosen chord (three sines) over low pink noise, faded in and out, trimmed to the
 * exact sample count so the audio ends with the video.
 */
function audioGraph(rand: () => number, seed: number, samples: number, duration: number): string {
  const root = 110 * 2 ** (Math.floor(rand() * 12) / 12);
  const intervals = rand() < 0.5 ? [0, 4, 7] : [0, 3, 7];
  const tremolo = (0.2 + rand() * 0.8).toFixed(3);
  const parts = intervals.map(
    (semi, i) =>
      `sine=f=${(root * 2 ** (semi / 12)).toFixed(3)}:r=${SAMPLE_RATE},volume=${(0.12 - i * 0.02).toFixed(2)}[s${i}]`,
  );
  parts.push(`anoisesrc=c=pink:a=0.03:seed=${seed >>> 0}:r=${SAMPLE_RATE}[n]`);
  const fadeOut = Math.min(0.5, duration / 4);
  parts.push(
    `[s0][s1][s2][n]amix=inputs=4:normalize=0,atrim=end_sample=${samples},tremolo=f=${tremolo}:d=0.3,` +
      `afade=t=in:d=${Math.min(0.3, duration / 4)},afade=t=out:st=${(duration - fadeOut).toFixed(3)}:d=${fadeOut},` +
      `aformat=sample_fmts=fltp:sample_rates=${SAMPLE_RATE}:channel_layouts=stereo[a]`,
  );
  return parts.join(';');
}
