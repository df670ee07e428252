import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probe, runFfmpeg } from '@mf/media';
import type { AudioFile, AudioGenerator } from './audio';
import { musicGraph, SAMPLE_RATE, sfxGraph } from './synthesis-graphs';

export interface LocalAudioOptions {
  ffmpegPath: string;
  ffprobePath: string;
  /** espeak-ng binary (ESPEAK_PATH, else 'espeak-ng' on PATH). */
  espeakPath: string;
  /** Per external process (espeak-ng, ffmpeg, ffprobe). Default 120 s. */
  timeoutMs?: number;
}

const CONTENT_TYPE = 'audio/mp4';
/** Bit-exact output: the same inputs give the same bytes (no encoder version or timestamps written). */
const BITEXACT_ARGS = ['-fflags', '+bitexact', '-flags:a', '+bitexact', '-map_metadata', '-1'];
const AAC_ARGS = ['-c:a', 'aac', '-b:a', '128k', '-ar', String(SAMPLE_RATE)];

/** Friendly names the model may use, mapped to espeak-ng voices. */
const VOICE_ALIASES: Record<string, string> = {
  default: 'en-us',
  male: 'en-us+m3',
  female: 'en-us+f3',
  british: 'en-gb',
  'british-female': 'en-gb+f3',
  american: 'en-us',
  'american-female': 'en-us+f3',
};
/** An espeak-ng voice name (language, optional variant): nothing that could read as an option or path. */
const VOICE_PATTERN = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,3}(\+[a-z0-9]{1,12})?$/i;

/**
 * Audio made on this machine, offline: voice lines with espeak-ng, music and sound effects
 * synthesized by ffmpeg from the seed (and a few mood words of the prompt). Output is AAC in .m4a
 * at 44.1 kHz; music and effects last exactly the asked duration and are byte-identical per
 * (seed, prompt, duration).
 */
export class LocalAudioGenerator implements AudioGenerator {
  private readonly timeoutMs: number;

  constructor(private readonly opts: LocalAudioOptions) {
    this.timeoutMs = opts.timeoutMs ?? 120_000;
  }

  async voice(o: { text: string; voice?: string; outFile: string }): Promise<AudioFile> {
    const voice = resolveVoice(o.voice);
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'mf-voice-'));
    try {
      // The text goes through a file: a line starting with '-' can never be read as an option.
      const textFile = path.join(scratch, 'line.txt');
      const wav = path.join(scratch, 'line.wav');
      await fs.writeFile(textFile, o.text, 'utf8');
      await this.espeak(['-v', voice, '-s', '160', '-w', wav, '-f', textFile]);
      await this.ffmpeg([
        '-i',
        fileArg(wav),
        '-ac',
        '1',
        ...AAC_ARGS,
        ...BITEXACT_ARGS,
        '-f',
        'ipod',
        '-y',
        fileArg(o.outFile),
      ]);
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
    return this.describe(o.outFile);
  }

  async music(o: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile> {
    await this.synthesize(musicGraph(o.prompt, o.durationSec, o.seed), o.durationSec, o.outFile);
    return this.describe(o.outFile);
  }

  async sfx(o: { prompt: string; durationSec: number; seed: number; outFile: string }): Promise<AudioFile> {
    await this.synthesize(sfxGraph(o.prompt, o.durationSec, o.seed), o.durationSec, o.outFile);
    return this.describe(o.outFile);
  }

  /** Renders a filter graph ending in [pre] to exactly durationSec of stereo AAC. */
  private async synthesize(graph: string, durationSec: number, outFile: string): Promise<void> {
    if (!(durationSec > 0)) throw new RangeError('durationSec must be positive');
    const samples = Math.round(durationSec * SAMPLE_RATE);
    const full = `${graph};[pre]aformat=sample_fmts=fltp:sample_rates=${SAMPLE_RATE}:channel_layouts=stereo,atrim=end_sample=${samples}[a]`;
    await this.ffmpeg([
      '-filter_complex_threads',
      '1',
      '-filter_complex',
      full,
      '-map',
      '[a]',
      ...AAC_ARGS,
      '-ac',
      '2',
      ...BITEXACT_ARGS,
      '-f',
      'ipod',
      '-y',
      fileArg(outFile),
    ]);
  }

  private async describe(file: string): Promise<AudioFile> {
    const info = await probe(file, { ffprobePath: this.opts.ffprobePath, timeoutMs: this.timeoutMs });
    if (!info.audio || !(info.durationSec > 0)) throw new Error('generated audio has no audio stream');
    return { path: file, contentType: CONTENT_TYPE, durationSec: info.durationSec };
  }

  private ffmpeg(args: string[]): Promise<void> {
    return runFfmpeg(['-v', 'error', ...args], { ffmpegPath: this.opts.ffmpegPath, timeoutMs: this.timeoutMs });
  }

  private espeak(args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(
        this.opts.espeakPath,
        args,
        { timeout: this.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024 },
        (err, _stdout, stderr) => {
          // stderr may name paths: it goes into the error for logs; callers never show it to users.
          if (err)
            reject(
              new Error(`espeak-ng failed: ${err.message}${stderr ? ` (${String(stderr).trim().slice(0, 300)})` : ''}`),
            );
          else resolve();
        },
      );
    });
  }
}

/** The espeak-ng voice for a requested name; throws RangeError for a name that is not a voice. */
export function resolveVoice(requested: string | undefined): string {
  const name = (requested ?? 'default').trim().toLowerCase();
  const voice = VOICE_ALIASES[name] ?? name;
  if (!VOICE_PATTERN.test(voice)) throw new RangeError(`unknown voice "${String(requested).slice(0, 40)}"`);
  return voice;
}

function fileArg(file: string): string {
  return `file:${path.resolve(file)}`;
}
