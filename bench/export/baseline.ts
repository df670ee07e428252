import { FPS, HEIGHT, SCENE_SEC, SCENE_SHAPES, WIDTH, type BenchSources } from './sources';

const RATE = 48_000;

/**
 * The same export as ONE ffmpeg command: every input, scale/pad per clip, the concat filter, the
 * voice lines delayed to their scene, the looped music ducked under them, one encode with the
 * same x264 and AAC settings as our pipeline.
 */
export function baselineArgs(s: BenchSources, out: string): string[] {
  const n = SCENE_SHAPES.length;
  const total = n * SCENE_SEC * RATE;
  const sceneSamples = SCENE_SEC * RATE;
  const inputs: string[] = [];
  const graph: string[] = [];
  s.scenes.forEach((file) => inputs.push('-i', file));
  s.voices.forEach((file) => inputs.push('-i', file));
  inputs.push('-stream_loop', '-1', '-i', s.music);

  SCENE_SHAPES.forEach((shape, i) => {
    graph.push(
      `[${i}:v]fps=${FPS},scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=decrease:force_divisible_by=2,pad=${WIDTH}:${HEIGHT}:(ow-iw)/2:(oh-ih)/2:color=black,` +
        `setsar=1,format=yuv420p,trim=end_frame=${SCENE_SEC * FPS},setpts=PTS-STARTPTS[v${i}]`,
    );
    graph.push(
      shape.audio
        ? `[${i}:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,apad,atrim=end_sample=${sceneSamples},asetpts=PTS-STARTPTS[a${i}]`
        : `anullsrc=r=${RATE}:cl=stereo,atrim=end_sample=${sceneSamples}[a${i}]`,
    );
  });
  graph.push(`${SCENE_SHAPES.map((_, i) => `[v${i}][a${i}]`).join('')}concat=n=${n}:v=1:a=1[vcat][acat]`);
  s.voices.forEach((_, i) =>
    graph.push(
      `[${n + i}:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,adelay=delays=${i * sceneSamples}S:all=1[o${i}]`,
    ),
  );
  graph.push(
    `${s.voices.map((_, i) => `[o${i}]`).join('')}amix=inputs=${s.voices.length}:normalize=0:duration=longest,apad,atrim=end_sample=${total},asplit=2[voice][key]`,
  );
  graph.push(
    `[${2 * n}:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,volume=0.6,apad,atrim=end_sample=${total}[music]`,
  );
  graph.push('[music][key]sidechaincompress=threshold=0.015:ratio=10:attack=20:release=400:makeup=1[ducked]');
  graph.push(`[acat][voice][ducked]amix=inputs=3:normalize=0:duration=first,atrim=end_sample=${total}[aout]`);

  return [
    '-hide_banner',
    '-v',
    'error',
    '-nostdin',
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[vcat]',
    '-map',
    '[aout]',
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
    '-g',
    String(FPS * 2),
    '-c:a',
    'aac',
    '-b:a',
    '192k',
    '-ar',
    String(RATE),
    '-ac',
    '2',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    out,
  ];
}
