import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { probe } from '@mf/media';
import { seededRandom } from '@mf/media';
import { LocalAudioGenerator, resolveVoice } from '../src/media/local-audio';
import { sfxKind } from '../src/media/synthesis-graphs';

const run = promisify(execFile);

/** Real espeak-ng and ffmpeg: the files must decode and last what was asked. */
describe('local audio generator', () => {
  let dir: string;
  const gen = new LocalAudioGenerator({ ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe', espeakPath: 'espeak-ng' });
  const file = (name: string) => path.join(dir, name);
  const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-audio-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Decodes the whole file (not only its header) and measures its loudness. */
  async function decode(f: string): Promise<{ maxDb: number }> {
    const { stderr } = await run('ffmpeg', [
      '-v',
      'info',
      '-nostdin',
      '-i',
      f,
      '-af',
      'volumedetect',
      '-f',
      'null',
      '-',
    ]);
    const max = /max_volume: (-?[\d.]+|-inf) dB/.exec(stderr)?.[1];
    return { maxDb: max === undefined || max === '-inf' ? -Infinity : Number(max) };
  }

  it('speaks a line with espeak-ng into a decodable AAC file with a real duration', async () => {
    const out = await gen.voice({
      text: 'Welcome to the studio. Today we make a short film.',
      outFile: file('voice.m4a'),
    });
    const info = await probe(out.path, { ffprobePath: 'ffprobe' });
    expect(out).toMatchObject({ path: file('voice.m4a'), contentType: 'audio/mp4' });
    expect(info.audio).toMatchObject({ codec: 'aac', sampleRate: 44_100 });
    expect(info.video).toBeUndefined();
    expect(out.durationSec).toBeGreaterThan(1);
    expect(out.durationSec).toBeCloseTo(info.durationSec, 3);
    expect((await decode(out.path)).maxDb).toBeGreaterThan(-30);
  });

  it('speaks with a named voice and refuses a voice name that could be an option', async () => {
    const out = await gen.voice({ text: 'Hello', voice: 'female', outFile: file('female.m4a') });
    expect(out.durationSec).toBeGreaterThan(0);
    expect(resolveVoice('british')).toBe('en-gb');
    expect(() => resolveVoice('--help')).toThrow(RangeError);
    await expect(gen.voice({ text: 'Hello', voice: 'zz-nope', outFile: file('nope.m4a') })).rejects.toThrow(
      /espeak-ng failed/,
    );
  });

  it.each([
    ['music', 7.3],
    ['music', 2],
    ['sfx', 1.5],
    ['sfx', 0.5],
  ] as const)(
    'makes %s of exactly the asked duration (%s s), audible, stereo AAC at 44.1 kHz',
    async (kind, seconds) => {
      const out = await gen[kind]({
        prompt: kind === 'music' ? 'calm ambient' : 'deep impact',
        durationSec: seconds,
        seed: 42,
        outFile: file(`${kind}-${seconds}.m4a`),
      });
      const info = await probe(out.path, { ffprobePath: 'ffprobe' });
      expect(Math.abs(out.durationSec - seconds)).toBeLessThanOrEqual(0.1);
      expect(Math.abs(info.durationSec - seconds)).toBeLessThanOrEqual(0.1);
      expect(info.audio).toMatchObject({ codec: 'aac', sampleRate: 44_100, channels: 2 });
      const { maxDb } = await decode(out.path);
      expect(maxDb).toBeGreaterThan(-30);
      expect(maxDb).toBeLessThanOrEqual(0);
    },
  );

  it('makes every sound-effect family at the asked duration', async () => {
    for (const prompt of ['whoosh', 'boom', 'chime', 'riser', 'rain', 'zzz']) {
      const out = await gen.sfx({ prompt, durationSec: 1.2, seed: 3, outFile: file(`sfx-${prompt}.m4a`) });
      expect(Math.abs(out.durationSec - 1.2)).toBeLessThanOrEqual(0.1);
      expect((await decode(out.path)).maxDb).toBeGreaterThan(-40);
    }
    expect(sfxKind('a big whoosh', seededRandom(1))).toBe('whoosh');
    expect(sfxKind('door slam', seededRandom(1))).toBe('impact');
  });

  it('is deterministic per seed: same seed, same bytes; another seed, another piece', async () => {
    const a = await gen.music({ prompt: 'upbeat', durationSec: 3, seed: 7, outFile: file('m-a.m4a') });
    const b = await gen.music({ prompt: 'upbeat', durationSec: 3, seed: 7, outFile: file('m-b.m4a') });
    const c = await gen.music({ prompt: 'upbeat', durationSec: 3, seed: 8, outFile: file('m-c.m4a') });
    expect(sha(a.path)).toBe(sha(b.path));
    expect(sha(c.path)).not.toBe(sha(a.path));
    const s1 = await gen.sfx({ prompt: 'whoosh', durationSec: 1, seed: 11, outFile: file('s-a.m4a') });
    const s2 = await gen.sfx({ prompt: 'whoosh', durationSec: 1, seed: 11, outFile: file('s-b.m4a') });
    const s3 = await gen.sfx({ prompt: 'whoosh', durationSec: 1, seed: 12, outFile: file('s-c.m4a') });
    expect(sha(s1.path)).toBe(sha(s2.path));
    expect(sha(s3.path)).not.toBe(sha(s1.path));
  });
});
