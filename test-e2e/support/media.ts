import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Probe {
  duration: number;
  video?: { width: number; height: number; codec: string };
  audio?: { codec: string };
  format: string;
}

/** Downloads a URL to a temp file and reads it with ffprobe, as a client's player would see it. */
export async function downloadAndProbe(
  url: string,
): Promise<{ file: string; bytes: number; contentType: string | null; probe: Probe }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mf-probe-')), path.basename(new URL(url).pathname));
  fs.writeFileSync(file, body);
  return { file, bytes: body.length, contentType: res.headers.get('content-type'), probe: await probe(file) };
}

export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    file,
  ]);
  const info = JSON.parse(stdout) as {
    format: { duration?: string; format_name: string };
    streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
  };
  const v = info.streams.find((s) => s.codec_type === 'video');
  const a = info.streams.find((s) => s.codec_type === 'audio');
  return {
    duration: Number(info.format.duration ?? 0),
    format: info.format.format_name,
    video: v ? { width: v.width!, height: v.height!, codec: v.codec_name } : undefined,
    audio: a ? { codec: a.codec_name } : undefined,
  };
}
