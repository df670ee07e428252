import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FfmpegError, probe, resolveFfmpeg, resolveFfprobe, runFfmpeg } from '@mf/media';
import { renderImage } from '../src/providers/local/render-image';
import { renderVideo } from '../src/providers/local/render-video';
import {
  IMAGE_SIZES,
  imageSize,
  videoSize,
  type ImageAspect,
  type VideoAspect,
  type VideoResolution,
} from '../src/providers/local/sizes';

// Renders are real ffmpeg runs; a loaded 2-core machine needs more than the default.
jest.setTimeout(120_000);

const run = promisify(execFile);
const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();
const timeoutMs = 120_000;
const FPS = 24;

let dir: string;
let redPng: string;
let checkerJpg: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mf-local-render-'));
  redPng = path.join(dir, 'red.png');
  checkerJpg = path.join(dir, 'checker.jpg');
  await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=320x200', '-frames:v', '1', '-y', redPng], {
    ffmpegPath,
    timeoutMs,
  });
  await runFfmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=200x300', '-frames:v', '1', '-y', checkerJpg], {
    ffmpegPath,
    timeoutMs,
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const out = (ext: string) => path.join(dir, `out-${++n}.${ext}`);
const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

/** Frame count and pixel format of the first video stream (not part of ProbeResult). */
async function videoDetails(file: string): Promise<{ frames: number; pixFmt: string }> {
  const { stdout } = await run(ffprobePath, [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_packets',
    '-show_entries',
    'stream=nb_read_packets,pix_fmt',
    '-of',
    'json',
    file,
  ]);
  const s = (JSON.parse(stdout) as { streams: Array<{ nb_read_packets: string; pix_fmt: string }> }).streams[0];
  return { frames: Number(s.nb_read_packets), pixFmt: s.pix_fmt };
}

/** Polls until the condition holds (bounded, so a broken render fails the test instead of hanging). */
async function until(condition: () => Promise<boolean>, maxPolls = 1000): Promise<void> {
  for (let i = 0; i < maxPolls; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition never held');
}

/** The RGB value of one pixel of an image. */
async function pixel(file: string, x: number, y: number): Promise<[number, number, number]> {
  const { stdout } = await run(
    ffmpegPath,
    ['-v', 'error', '-i', file, '-vf', `crop=1:1:${x}:${y},format=rgb24`, '-f', 'rawvideo', '-'],
    { encoding: 'buffer' },
  );
  return [stdout[0], stdout[1], stdout[2]];
}

describe('renderVideo', () => {
  const cases: Array<[VideoAspect, VideoResolution, 4 | 5, boolean]> = [
    ['16:9', '720p', 5, true],
    ['9:16', '480p', 4, false],
    ['21:9', '480p', 5, true],
    ['1:1', '720p', 4, false],
    ['4:3', '480p', 4, true],
    ['3:4', '720p', 5, false],
  ];

  it.each(cases)(
    'renders %s at %s for %ss (audio %s) at the table size and exact length',
    async (aspect, resolution, seconds, audio) => {
      const file = out('mp4');
      const size = videoSize(aspect, resolution);

      await renderVideo({
        outFile: file,
        ...size,
        durationSeconds: seconds,
        prompt: 'a red fox crosses a frozen creek at dawn',
        seed: 1234,
        audio,
        ffmpegPath,
        timeoutMs,
      });

      const info = await probe(file, { ffprobePath });
      expect(info.formatName).toContain('mp4');
      expect(info.video).toMatchObject({ codec: 'h264', width: size.width, height: size.height, fps: FPS });
      expect(Math.abs(info.durationSec - seconds)).toBeLessThanOrEqual(1 / FPS);
      if (audio) expect(info.audio).toMatchObject({ codec: 'aac', sampleRate: 48000, channels: 2 });
      else expect(info.audio).toBeUndefined();
      expect(await videoDetails(file)).toEqual({ frames: seconds * FPS, pixFmt: 'yuv420p' });
    },
  );

  it('puts the index before the media data (+faststart) and leaves no scratch files', async () => {
    const file = out('mp4');
    await renderVideo({
      outFile: file,
      ...videoSize('16:9', '480p'),
      durationSeconds: 4,
      prompt: 'faststart',
      seed: 5,
      audio: true,
      ffmpegPath,
      timeoutMs,
    });

    const bytes = await readFile(file);
    expect(bytes.indexOf('moov')).toBeGreaterThan(0);
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));
    expect((await readdir(dir)).filter((f) => f.startsWith('.render-'))).toEqual([]);
  });

  it('makes the same bytes for the same inputs and different bytes for another seed', async () => {
    const opts = {
      ...videoSize('16:9', '480p'),
      durationSeconds: 4,
      prompt: 'determinism',
      audio: true,
      ffmpegPath,
      timeoutMs,
    };
    const [a, b, c] = [out('mp4'), out('mp4'), out('mp4')];

    await renderVideo({ ...opts, outFile: a, seed: 99 });
    await renderVideo({ ...opts, outFile: b, seed: 99 });
    await renderVideo({ ...opts, outFile: c, seed: 100 });

    expect(await sha256(a)).toBe(await sha256(b));
    expect(await sha256(c)).not.toBe(await sha256(a));
  });

  it('makes moving frames: the first and last frame differ', async () => {
    const file = out('mp4');
    await renderVideo({
      outFile: file,
      ...videoSize('1:1', '480p'),
      durationSeconds: 4,
      prompt: 'motion',
      seed: 3,
      audio: false,
      ffmpegPath,
      timeoutMs,
    });
    const first = out('png');
    const last = out('png');

    await runFfmpeg(['-i', file, '-vf', 'select=eq(n\\,0)', '-frames:v', '1', '-y', first], { ffmpegPath, timeoutMs });
    await runFfmpeg(['-i', file, '-vf', `select=eq(n\\,${4 * FPS - 1})`, '-frames:v', '1', '-y', last], {
      ffmpegPath,
      timeoutMs,
    });

    expect(await sha256(first)).not.toBe(await sha256(last));
  });

  it('draws prompts with quotes, colons, backslashes, % sequences, newlines and emoji, and very long ones', async () => {
    const nasty = `it's a "test": 100% %{pts} %{eif:1:d} \\ back\\slash; [brackets], commas\nnew line 🦊 ${'ü'.repeat(50)}`;
    const long = 'a very long prompt '.repeat(800);
    for (const prompt of [nasty, long]) {
      const file = out('mp4');
      await renderVideo({
        outFile: file,
        ...videoSize('9:16', '480p'),
        durationSeconds: 4,
        prompt,
        seed: 8,
        audio: false,
        ffmpegPath,
        timeoutMs,
      });
      expect((await probe(file, { ffprobePath })).video).toMatchObject({ width: 480, height: 854 });
    }
  });

  it('animates a reference image with the prompt over it, at the table size and length', async () => {
    const file = out('mp4');
    const size = videoSize('9:16', '720p');

    await renderVideo({
      outFile: file,
      ...size,
      durationSeconds: 5,
      prompt: 'the fox turns its head',
      seed: 11,
      audio: true,
      referenceImage: checkerJpg,
      ffmpegPath,
      timeoutMs,
    });

    const info = await probe(file, { ffprobePath });
    expect(info.video).toMatchObject({ codec: 'h264', width: size.width, height: size.height });
    expect(info.audio?.codec).toBe('aac');
    expect(Math.abs(info.durationSec - 5)).toBeLessThanOrEqual(1 / FPS);
    expect((await videoDetails(file)).frames).toBe(5 * FPS);
  });

  it('shows the reference image in the frame', async () => {
    const file = out('mp4');
    await renderVideo({
      outFile: file,
      ...videoSize('16:9', '480p'),
      durationSeconds: 4,
      prompt: 'red',
      seed: 2,
      audio: false,
      referenceImage: redPng,
      ffmpegPath,
      timeoutMs,
    });
    const frame = out('png');
    await runFfmpeg(['-i', file, '-frames:v', '1', '-y', frame], { ffmpegPath, timeoutMs });

    const [r, g, b] = await pixel(frame, 20, 20);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
  });

  it('renders reference videos deterministically', async () => {
    const opts = {
      ...videoSize('4:3', '480p'),
      durationSeconds: 4,
      prompt: 'ref',
      seed: 21,
      audio: true,
      referenceImage: checkerJpg,
      ffmpegPath,
      timeoutMs,
    };
    const [a, b] = [out('mp4'), out('mp4')];
    await renderVideo({ ...opts, outFile: a });
    await renderVideo({ ...opts, outFile: b });
    expect(await sha256(a)).toBe(await sha256(b));
  });

  it('refuses a reference that is a playlist rather than an image, and leaves no output', async () => {
    const fake = path.join(dir, 'fake-image');
    await writeFile(fake, '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n');
    const file = out('mp4');

    const err = await renderVideo({
      outFile: file,
      ...videoSize('1:1', '480p'),
      durationSeconds: 4,
      prompt: 'x',
      seed: 1,
      audio: false,
      referenceImage: fake,
      ffmpegPath,
      timeoutMs,
    }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(FfmpegError);
    expect((err as FfmpegError).kind).toBe('failed');
    await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('kills a running ffmpeg when the signal aborts and removes the partial output', async () => {
    const file = out('mp4');
    const controller = new AbortController();
    const render = renderVideo({
      outFile: file,
      ...videoSize('21:9', '720p'),
      durationSeconds: 15,
      prompt: 'long',
      seed: 1,
      audio: true,
      ffmpegPath,
      timeoutMs,
      signal: controller.signal,
    });
    // ffmpeg creates the output when it starts encoding: then it is surely running.
    await until(async () => (await readFile(file).catch(() => null)) !== null);
    controller.abort();

    await expect(render).rejects.toMatchObject({ kind: 'aborted' });
    await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('renderImage', () => {
  it.each(Object.keys(IMAGE_SIZES) as ImageAspect[])('renders a %s PNG at the table size', async (aspect) => {
    const file = out('png');
    const size = imageSize(aspect);

    await renderImage({ outFile: file, ...size, prompt: 'a lighthouse in a storm', seed: 77, ffmpegPath, timeoutMs });

    const info = await probe(file, { ffprobePath });
    expect(info.video).toMatchObject({ codec: 'png', width: size.width, height: size.height });
    expect((await readFile(file)).subarray(1, 4).toString()).toBe('PNG');
  });

  it('makes the same bytes for the same seed and different bytes for another seed', async () => {
    const opts = { ...imageSize('1:1'), prompt: 'seeded', ffmpegPath, timeoutMs };
    const [a, b, c] = [out('png'), out('png'), out('png')];

    await renderImage({ ...opts, outFile: a, seed: 5 });
    await renderImage({ ...opts, outFile: b, seed: 5 });
    await renderImage({ ...opts, outFile: c, seed: 6 });

    expect(await sha256(a)).toBe(await sha256(b));
    expect(await sha256(c)).not.toBe(await sha256(a));
  });

  it('composes one reference as the background under the prompt', async () => {
    const file = out('png');
    await renderImage({
      outFile: file,
      ...imageSize('16:9'),
      prompt: 'make it redder',
      seed: 1,
      references: [redPng],
      ffmpegPath,
      timeoutMs,
    });

    expect((await probe(file, { ffprobePath })).video).toMatchObject({ width: 1344, height: 768 });
    // Red under a light seed-coloured wash.
    const [r, g, b] = await pixel(file, 10, 10);
    expect(r).toBeGreaterThan(g + 80);
    expect(r).toBeGreaterThan(b + 80);
  });

  it('tiles several references of other sizes and formats, deterministically per seed', async () => {
    const opts = {
      ...imageSize('9:16'),
      prompt: 'a collage',
      references: [redPng, checkerJpg, redPng],
      ffmpegPath,
      timeoutMs,
    };
    const [a, b, c, plain] = [out('png'), out('png'), out('png'), out('png')];

    await renderImage({ ...opts, outFile: a, seed: 10 });
    await renderImage({ ...opts, outFile: b, seed: 10 });
    await renderImage({ ...opts, outFile: c, seed: 11 });
    await renderImage({ ...opts, references: [], outFile: plain, seed: 10 });

    expect((await probe(a, { ffprobePath })).video).toMatchObject({ width: 768, height: 1344 });
    expect(await sha256(a)).toBe(await sha256(b));
    expect(await sha256(c)).not.toBe(await sha256(a));
    expect(await sha256(plain)).not.toBe(await sha256(a));
    // Portrait: two columns, two rows; the first tile (top left) is the red reference.
    const [r, g] = await pixel(a, 40, 40);
    expect(r).toBeGreaterThan(g + 80);
  });
});
