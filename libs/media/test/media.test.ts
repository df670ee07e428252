import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FfmpegError, probe, ProbeError, resolveFfmpeg, resolveFfprobe, runFfmpeg } from '../src';
import { parseProbeOutput } from '../src/probe';

const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mf-media-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('resolveFfmpeg / resolveFfprobe', () => {
  it('prefers FFMPEG_PATH and FFPROBE_PATH when set', () => {
    expect(resolveFfmpeg({ FFMPEG_PATH: '/opt/ff/bin/ffmpeg' })).toBe('/opt/ff/bin/ffmpeg');
    expect(resolveFfprobe({ FFPROBE_PATH: '/opt/ff/bin/ffprobe' })).toBe('/opt/ff/bin/ffprobe');
  });

  const packaged = ['ffmpeg-static', 'ffprobe-static', '@ffprobe-installer/ffprobe'].some((name) => {
    try {
      require.resolve(name);
      return true;
    } catch {
      return false;
    }
  });

  (packaged ? it.skip : it)('falls back to the binaries on PATH when no packaged binary is installed', () => {
    expect(resolveFfmpeg({})).toBe('ffmpeg');
    expect(resolveFfprobe({})).toBe('ffprobe');
    expect(resolveFfmpeg({ FFMPEG_PATH: '  ' })).toBe('ffmpeg');
  });
});

describe('probe', () => {
  it('describes a generated mp4 with video and audio', async () => {
    const file = path.join(dir, 'av.mp4');
    await runFfmpeg(
      [
        '-f',
        'lavfi',
        '-i',
        'testsrc2=s=320x240:r=25:d=2',
        '-f',
        'lavfi',
        '-i',
        'sine=f=440:r=44100:d=2',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-ac',
        '2',
        '-y',
        file,
      ],
      { ffmpegPath, timeoutMs: 30_000 },
    );

    const result = await probe(file, { ffprobePath });

    expect(result.formatName).toContain('mp4');
    expect(result.durationSec).toBeGreaterThan(1.9);
    expect(result.durationSec).toBeLessThan(2.1);
    expect(result.video).toEqual({ codec: 'h264', width: 320, height: 240, fps: 25 });
    expect(result.audio).toEqual({ codec: 'aac', sampleRate: 44100, channels: 2 });
  });

  it('describes a still PNG as video without audio and without duration', async () => {
    const file = path.join(dir, 'still.png');
    await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=64x48', '-frames:v', '1', '-y', file], {
      ffmpegPath,
      timeoutMs: 30_000,
    });

    const result = await probe(file, { ffprobePath });

    expect(result.video).toMatchObject({ codec: 'png', width: 64, height: 48 });
    expect(result.audio).toBeUndefined();
    expect(result.durationSec).toBe(0);
  });

  it('rejects a file of garbage bytes with ProbeError', async () => {
    const file = path.join(dir, 'garbage.mp4');
    await writeFile(file, 'this is not a media file\n'.repeat(500));

    const err = await rejection(probe(file, { ffprobePath }));

    expect(err).toBeInstanceOf(ProbeError);
    expect((err as ProbeError).stderrTail).toMatch(/Invalid data/);
  });

  it('rejects a truncated mp4 with ProbeError', async () => {
    // Without +faststart the index (moov) is at the end: cutting the file loses it.
    const whole = path.join(dir, 'whole.mp4');
    await runFfmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=s=320x240:d=2', '-c:v', 'libx264', '-preset', 'ultrafast', '-y', whole],
      { ffmpegPath, timeoutMs: 30_000 },
    );
    const truncated = path.join(dir, 'truncated.mp4');
    await writeFile(truncated, (await readFile(whole)).subarray(0, 4000));

    await expect(probe(truncated, { ffprobePath })).rejects.toBeInstanceOf(ProbeError);
  });

  it('rejects a missing file with ProbeError', async () => {
    await expect(probe(path.join(dir, 'nope.mp4'), { ffprobePath })).rejects.toBeInstanceOf(ProbeError);
  });

  it('rejects ffprobe output without any audio or video stream', () => {
    expect(() =>
      parseProbeOutput(JSON.stringify({ format: { format_name: 'data' }, streams: [{ codec_type: 'data' }] })),
    ).toThrow(ProbeError);
  });
});

describe('runFfmpeg', () => {
  it('kills a never-ending ffmpeg at the timeout and rejects with kind timeout', async () => {
    // -re reads the endless source in real time, so this would run forever.
    const err = await rejection(
      runFfmpeg(['-re', '-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=10', '-f', 'null', '-'], {
        ffmpegPath,
        timeoutMs: 500,
        killGraceMs: 500,
      }),
    );

    expect(err).toBeInstanceOf(FfmpegError);
    expect((err as FfmpegError).kind).toBe('timeout');
  });

  it('kills ffmpeg when the signal aborts and rejects with kind aborted', async () => {
    const controller = new AbortController();
    const run = runFfmpeg(['-re', '-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=10', '-f', 'null', '-'], {
      ffmpegPath,
      timeoutMs: 60_000,
      signal: controller.signal,
      killGraceMs: 500,
    });
    setImmediate(() => controller.abort());

    const err = await rejection(run);

    expect(err).toBeInstanceOf(FfmpegError);
    expect((err as FfmpegError).kind).toBe('aborted');
  });

  it('does not start ffmpeg when the signal is already aborted', async () => {
    const out = path.join(dir, 'never.png');
    const controller = new AbortController();
    controller.abort();

    const err = await rejection(
      runFfmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=16x16', '-frames:v', '1', '-y', out], {
        ffmpegPath,
        timeoutMs: 30_000,
        signal: controller.signal,
      }),
    );

    expect((err as FfmpegError).kind).toBe('aborted');
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a bad argument with kind failed, the exit code and a stderr tail that is not in the message', async () => {
    const err = await rejection(
      runFfmpeg(['-f', 'lavfi', '-i', 'nosuchsource=s=16x16', '-f', 'null', '-'], { ffmpegPath, timeoutMs: 30_000 }),
    );

    expect(err).toBeInstanceOf(FfmpegError);
    const e = err as FfmpegError;
    expect(e.kind).toBe('failed');
    expect(e.exitCode).not.toBe(0);
    expect(e.stderrTail).toMatch(/nosuchsource/);
    expect(e.message).not.toMatch(/nosuchsource/);
  });

  it('rejects with kind spawn when the binary does not exist', async () => {
    const err = await rejection(
      runFfmpeg(['-version'], { ffmpegPath: path.join(dir, 'no-ffmpeg-here'), timeoutMs: 30_000 }),
    );

    expect((err as FfmpegError).kind).toBe('spawn');
  });

  it('keeps only the last 8 KB of a long stderr', async () => {
    // showinfo logs a line per frame (~200 bytes): stopped once ffmpeg reports 20 s of output
    // (500 frames), it has written far more than 8 KB, however slowly the machine ran it.
    const stop = new AbortController();
    const err = await rejection(
      runFfmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=16x16:r=25', '-vf', 'showinfo', '-f', 'null', '-'], {
        ffmpegPath,
        timeoutMs: 120_000,
        killGraceMs: 500,
        signal: stop.signal,
        onProgress: (outTimeUs) => {
          if (outTimeUs >= 20_000_000) stop.abort();
        },
      }),
    );

    const tail = (err as FfmpegError).stderrTail;
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(7 * 1024);
    expect(tail).toMatch(/showinfo/);
  });

  it('runs in cwd so relative paths resolve there', async () => {
    await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=32x16', '-frames:v', '1', '-y', 'relative.png'], {
      ffmpegPath,
      timeoutMs: 30_000,
      cwd: dir,
    });

    const result = await probe(path.join(dir, 'relative.png'), { ffprobePath });
    expect(result.video).toMatchObject({ width: 32, height: 16 });
  });
});
