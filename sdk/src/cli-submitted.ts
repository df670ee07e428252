// What the CLI does with a submitted job: print it, or wait for it (progress on stderr) and
// download its outputs with --out.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { str, type Parsed } from './cli-args';
import type { MediaforgeClient } from './client';
import { unreachable } from './transport';
import type { Job, SubmitResponse } from './types';

export const print = (v: unknown): void => {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
};

const SPINNER = ['|', '/', '-', '\\'];

/** Waits for the job with a progress indicator on stderr: a spinner line on a TTY, a line per status change otherwise. */
async function waitWithProgress(client: MediaforgeClient, jobId: string): Promise<Job> {
  const err = process.stderr;
  const tty = Boolean(err.isTTY);
  const started = Date.now();
  let status = 'processing';
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const render = (): void => {
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    err.write(`\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} ${jobId} ${status} ${secs}s`);
  };
  if (tty) {
    render();
    timer = setInterval(render, 120);
  } else err.write(`${jobId}: ${status}\n`);
  try {
    return await client.waitForJob(jobId, {
      intervalMs: 500,
      maxIntervalMs: 5000,
      timeoutMs: 30 * 60_000,
      onPoll: (job) => {
        // The percentage when the provider tells (the job's event stream carries every step).
        const now = job.status === 'processing' && job.progress !== null ? `processing ${job.progress}%` : job.status;
        if (now !== status) {
          status = now;
          if (!tty) err.write(`${jobId}: ${status} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
        }
      },
    });
  } finally {
    if (timer) clearInterval(timer);
    if (tty) {
      render();
      err.write('\n');
    }
  }
}

async function download(url: string, out: string): Promise<number> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new Error(`download ${url}: ${unreachable(new URL(url).origin, err)}`);
  }
  if (!res.ok || !res.body) throw new Error(`download ${url}: HTTP ${res.status}`);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const tmp = `${out}.part`;
  await pipeline(Readable.fromWeb(res.body), fs.createWriteStream(tmp));
  fs.renameSync(tmp, out);
  return fs.statSync(out).size;
}

/** The downloads for a completed job: one file for a video; for images, out, out-2.png, ... */
function outputs(job: Job, out: string): { url: string; file: string }[] {
  const r = job.result;
  if (!r) return [];
  if ('video' in r) return [{ url: r.video, file: out }];
  const ext = path.extname(out);
  const stem = out.slice(0, out.length - ext.length);
  return r.images.map((url, i) => ({ url, file: i === 0 ? out : `${stem}-${i + 1}${ext}` }));
}

export async function submitted(client: MediaforgeClient, p: Parsed, sub: SubmitResponse): Promise<void> {
  const out = str(p, 'out');
  if (!p.flags.has('wait') && !out) return print(sub);
  const job = await waitWithProgress(client, sub.job_id);
  const files: { file: string; bytes: number }[] = [];
  if (out) {
    for (const o of outputs(job, out)) {
      files.push({ file: o.file, bytes: await download(o.url, o.file) });
      process.stderr.write(`saved ${o.file}\n`);
    }
  }
  print(out ? { ...job, files } : job);
}
