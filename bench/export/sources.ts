import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SCENES = 6;
export const SCENE_SEC = 5;
export const WIDTH = 1280;
export const HEIGHT = 720;
export const FPS = 30;

/** Mixed shapes, rates and sound, as generated media arrive: every one needs scaling and padding. */
export const SCENE_SHAPES = [
  { size: '1920x1080', rate: 30, audio: true },
  { size: '1080x1920', rate: 30, audio: false },
  { size: '1080x1080', rate: 25, audio: true },
  { size: '1280x720', rate: 24, audio: true },
  { size: '854x480', rate: 30, audio: false },
  { size: '720x1280', rate: 30, audio: true },
] as const;

export interface BenchSources {
  scenes: string[];
  /** Scene 2's replacement (same shape, other picture): the "changed clip" of the re-export. */
  alternateScene: string;
  voices: string[];
  music: string;
}

/**
 * Generates the sources with ffmpeg. Moving test patterns with grain, so the encoder has real work
 * (a flat or static picture would make every encode look cheap).
 */
export async function makeBenchSources(dir: string, ffmpegPath: string): Promise<BenchSources> {
  await mkdir(dir, { recursive: true });
  const ff = (args: string[]) =>
    run(ffmpegPath, ['-hide_banner', '-v', 'error', ...args, '-y'], { maxBuffer: 16 * 1024 * 1024 });
  const scene = (i: number, pattern: string, file: string) => {
    const shape = SCENE_SHAPES[i];
    const audio = shape.audio
      ? ['-f', 'lavfi', '-i', `sine=f=${220 + 40 * i}:r=44100:d=${SCENE_SEC}`, '-c:a', 'aac', '-shortest']
      : [];
    return ff([
      '-f',
      'lavfi',
      '-i',
      `${pattern}=s=${shape.size}:r=${shape.rate}:d=${SCENE_SEC},noise=alls=4:allf=t`,
      ...audio,
      '-c:v',
      'libx264',
      '-preset',
      'superfast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
  };
  const scenes = SCENE_SHAPES.map((_, i) => path.join(dir, `scene-${i}.mp4`));
  const voices = scenes.map((_, i) => path.join(dir, `voice-${i}.m4a`));
  const alternateScene = path.join(dir, 'scene-2-alt.mp4');
  const music = path.join(dir, 'music.m4a');
  // Two at a time: the machine has few cores and this is not what is measured.
  const jobs: Array<() => Promise<unknown>> = [
    ...scenes.map((file, i) => () => scene(i, 'testsrc2', file)),
    () => scene(2, 'rgbtestsrc', alternateScene),
    ...voices.map(
      (file, i) => () =>
        ff([
          '-f',
          'lavfi',
          '-i',
          `sine=f=${600 + 50 * i}:r=24000:d=2.5`,
          '-af',
          'tremolo=f=5:d=0.7',
          '-c:a',
          'aac',
          file,
        ]),
    ),
    () =>
      ff([
        '-f',
        'lavfi',
        '-i',
        'sine=f=110:r=44100:d=10',
        '-f',
        'lavfi',
        '-i',
        'sine=f=165:r=44100:d=10',
        '-filter_complex',
        'amerge=inputs=2',
        '-c:a',
        'aac',
        music,
      ]),
  ];
  const next = async (): Promise<void> => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job();
  };
  await Promise.all([next(), next()]);
  return { scenes, alternateScene, voices, music };
}
