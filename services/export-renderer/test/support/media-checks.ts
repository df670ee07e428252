import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { resolveFfmpeg, resolveFfprobe } from '@mf/media';

const run = promisify(execFile);
const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();

export interface StreamInfo {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  avg_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  nb_read_packets?: string;
  extradata_hash?: string;
}

/** Every stream of a file with its packets counted, and the container duration. */
export async function streamsOf(file: string): Promise<{ streams: StreamInfo[]; durationSec: number }> {
  const { stdout } = await run(ffprobePath, [
    '-v',
    'error',
    '-count_packets',
    '-show_data_hash',
    'sha256',
    '-show_streams',
    '-show_format',
    '-of',
    'json',
    file,
  ]);
  const parsed = JSON.parse(stdout) as { streams: StreamInfo[]; format: { duration: string } };
  return { streams: parsed.streams, durationSec: Number(parsed.format.duration) };
}

/** RGB bytes of a w x h rectangle at (x, y) of the frame shown at `atSec`. */
export async function pixels(
  file: string,
  atSec: number,
  rect: { x: number; y: number; w: number; h: number },
): Promise<Buffer> {
  const { stdout } = await run(
    ffmpegPath,
    [
      '-v',
      'error',
      '-ss',
      String(atSec),
      '-i',
      file,
      '-frames:v',
      '1',
      '-vf',
      `crop=${rect.w}:${rect.h}:${rect.x}:${rect.y},format=rgb24`,
      '-f',
      'rawvideo',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** Mean level (dBFS) of the audio between two instants after `filter` (e.g. a low-pass that keeps only the music tone). */
export async function meanLevel(file: string, fromSec: number, toSec: number, filter: string): Promise<number> {
  const { stderr } = await run(ffmpegPath, [
    '-hide_banner',
    '-nostats',
    '-ss',
    String(fromSec),
    '-t',
    String(toSec - fromSec),
    '-i',
    file,
    '-vn',
    '-af',
    `${filter},volumedetect`,
    '-f',
    'null',
    '-',
  ]);
  const match = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr);
  if (!match) throw new Error(`no level measured:\n${stderr}`);
  return match[1] === '-inf' ? -Infinity : Number(match[1]);
}

/** ffmpeg and ffprobe processes this process started that are still alive. */
export async function childMediaProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ...": comm may hold spaces, so split after its closing parenthesis.
    const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (m && Number(m[2]) === process.pid && /^ff(mpeg|probe)$/.test(m[1])) found.push(Number(entry));
  }
  return found;
}

/** Samples childMediaProcesses every 20 ms until stopped; returns every pid seen. */
export function watchMediaProcesses(): { stop: () => Promise<number[]> } {
  const seen = new Set<number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const pid of await childMediaProcesses()) seen.add(pid);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return [...seen];
    },
  };
}
