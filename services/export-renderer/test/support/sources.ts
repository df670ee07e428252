import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveFfmpeg, runFfmpeg } from '@mf/media';

const ffmpegPath = resolveFfmpeg();

/** The colour of the 16:9 test clip, as ffmpeg writes it and as RGB for pixel checks. */
export const WIDE_COLOUR = { hex: '0x2060d0', rgb: [0x20, 0x60, 0xd0] as const };

export interface SourceFiles {
  /** 640x360 (16:9), 25 fps, 2 s, one flat colour, mono 44.1 kHz sound. */
  wide: string;
  /** 360x640 (9:16), 24 fps, 2 s, test pattern, no sound. */
  tall: string;
  /** 400x400 (1:1), 30 fps, 1.5 s, colour bars, stereo 48 kHz sound. */
  square: string;
  /** 360x640, 2 s, another pattern: the "changed" clip of cache tests. */
  tallAlt: string;
  /** 320x200 red PNG. */
  still: string;
  /** Voice-like lines: 1000 Hz for 0.8 s (m4a) and 1200 Hz for 1 s (wav). */
  voiceA: string;
  voiceB: string;
  /** 200 Hz for 1 s, stereo m4a: loops under longer videos. */
  music: string;
  /** wide re-encoded with its index at the end, cut in half: ffprobe cannot read it. */
  truncatedMoovAtEnd: string;
  /** wide with the index first (faststart), cut in half: probes, then fails to decode. */
  truncatedFaststart: string;
}

const run = (args: string[]) => runFfmpeg(['-v', 'error', ...args, '-y'], { ffmpegPath, timeoutMs: 120_000 });

/** Generates every test source into `dir` with ffmpeg (a few seconds on two cores). */
export async function makeSources(dir: string): Promise<SourceFiles> {
  await mkdir(dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  const files: SourceFiles = {
    wide: f('wide.mp4'),
    tall: f('tall.mp4'),
    square: f('square.mp4'),
    tallAlt: f('tall-alt.mp4'),
    still: f('still.png'),
    voiceA: f('voice-a.m4a'),
    voiceB: f('voice-b.wav'),
    music: f('music.m4a'),
    truncatedMoovAtEnd: f('truncated.mp4'),
    truncatedFaststart: f('truncated-faststart.mp4'),
  };
  const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  await Promise.all([
    run([
      '-f',
      'lavfi',
      '-i',
      `color=c=${WIDE_COLOUR.hex}:s=640x360:r=25:d=2`,
      '-f',
      'lavfi',
      '-i',
      'sine=f=440:r=44100:d=2',
      ...h264,
      '-c:a',
      'aac',
      '-ac',
      '1',
      '-shortest',
      files.wide,
    ]),
    run(['-f', 'lavfi', '-i', 'testsrc2=s=360x640:r=24:d=2', ...h264, files.tall]),
    run([
      '-f',
      'lavfi',
      '-i',
      'smptebars=s=400x400:r=30:d=1.5',
      '-f',
      'lavfi',
      '-i',
      'sine=f=660:r=48000:d=1.5',
      ...h264,
      '-c:a',
      'aac',
      '-ac',
      '2',
      '-shortest',
      files.square,
    ]),
    run(['-f', 'lavfi', '-i', 'rgbtestsrc=s=360x640:r=24:d=2', ...h264, files.tallAlt]),
    run(['-f', 'lavfi', '-i', 'color=c=red:s=320x200', '-frames:v', '1', files.still]),
    run(['-f', 'lavfi', '-i', 'sine=f=1000:r=22050:d=0.8', '-c:a', 'aac', files.voiceA]),
    run(['-f', 'lavfi', '-i', 'sine=f=1200:r=44100:d=1', files.voiceB]),
    run(['-f', 'lavfi', '-i', 'sine=f=200:r=44100:d=1', '-ac', '2', '-c:a', 'aac', files.music]),
  ]);
  const fast = f('wide-faststart.mp4');
  await run(['-i', files.wide, '-c', 'copy', '-movflags', '+faststart', fast]);
  await Promise.all([halve(files.wide, files.truncatedMoovAtEnd), halve(fast, files.truncatedFaststart)]);
  return files;
}

async function halve(from: string, to: string): Promise<void> {
  const bytes = await readFile(from);
  await writeFile(to, bytes.subarray(0, Math.floor(bytes.length / 2)));
}
