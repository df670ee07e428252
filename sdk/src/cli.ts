// The mediaforge CLI: `node --import tsx sdk/src/cli.ts <command>` (or the `mediaforge` bin).
// Reads MEDIAFORGE_API_KEY and MEDIAFORGE_BASE_URL (default http://localhost:8080).
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MediaforgeClient } from './client';
import { ApiError, JobFailedError } from './errors';
import type { GenerateImageParams, GenerateVideoParams, Job, SubmitResponse } from './types';

const USAGE = `Usage: mediaforge <command> [options]

Commands:
  generate video --prompt P [--duration 5] [--resolution 720p] [--aspect 16:9] [--no-audio]
                 [--fast] [--image-url URL] [--seed N] [--wait] [--out clip.mp4]
  generate image --prompt P [--num 1] [--aspect 1:1] [--seed N] [--wait] [--out img.png]
  job <id>        show a job
  cancel <id>     cancel a processing job
  models          list the models
  account         show the credit balance

Environment: MEDIAFORGE_API_KEY (required), MEDIAFORGE_BASE_URL (default http://localhost:8080).
Output is JSON on stdout; progress and errors go to stderr. --out implies --wait.`;

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

const BOOLEAN_FLAGS = new Set(['wait', 'no-audio', 'fast', 'help']);

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') flags.set('help', true);
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags.set(name, a.slice(eq + 1));
      else if (BOOLEAN_FLAGS.has(name)) flags.set(name, true);
      else {
        const v = argv[i + 1];
        if (v === undefined) throw new UsageError(`--${name} needs a value`);
        flags.set(name, v);
        i++;
      }
    } else positional.push(a);
  }
  return { positional, flags };
}

class UsageError extends Error {}

function str(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

function int(p: Parsed, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer`);
  return Number(v);
}

function checkFlags(p: Parsed, allowed: string[]): void {
  for (const k of p.flags.keys()) if (k !== 'help' && !allowed.includes(k)) throw new UsageError(`unknown option --${k}`);
}

const print = (v: unknown): void => {
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
        if (job.status !== status) {
          status = job.status;
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
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`download ${url}: HTTP ${res.status}`);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const tmp = `${out}.part`;
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(tmp));
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

async function submitted(client: MediaforgeClient, p: Parsed, sub: SubmitResponse): Promise<void> {
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

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let p: Parsed;
  try {
    p = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const [cmd, sub] = p.positional;
  if (!cmd || p.flags.has('help') || cmd === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return cmd || p.flags.has('help') ? 0 : 2;
  }
  const apiKey = env.MEDIAFORGE_API_KEY;
  if (!apiKey) {
    process.stderr.write('MEDIAFORGE_API_KEY is not set\n');
    return 2;
  }
  const client = new MediaforgeClient({ baseUrl: env.MEDIAFORGE_BASE_URL || 'http://localhost:8080', apiKey, userAgent: 'mediaforge-cli/0.1.0' });
  try {
    switch (cmd) {
      case 'generate': {
        const prompt = str(p, 'prompt');
        if (!prompt) throw new UsageError('--prompt is required');
        if (sub === 'video') {
          checkFlags(p, ['prompt', 'duration', 'resolution', 'aspect', 'no-audio', 'fast', 'image-url', 'seed', 'wait', 'out']);
          const params: GenerateVideoParams = { prompt };
          const duration = int(p, 'duration');
          if (duration !== undefined) params.duration_seconds = duration as GenerateVideoParams['duration_seconds'];
          const resolution = str(p, 'resolution');
          if (resolution) params.resolution = resolution as GenerateVideoParams['resolution'];
          const aspect = str(p, 'aspect');
          if (aspect) params.aspect_ratio = aspect as GenerateVideoParams['aspect_ratio'];
          if (p.flags.has('no-audio')) params.generate_audio = false;
          if (p.flags.has('fast')) params.fast = true;
          const imageUrl = str(p, 'image-url');
          if (imageUrl) params.image_url = imageUrl;
          const seed = int(p, 'seed');
          if (seed !== undefined) params.seed = seed;
          await submitted(client, p, await client.generateVideo(params));
        } else if (sub === 'image') {
          checkFlags(p, ['prompt', 'num', 'aspect', 'seed', 'wait', 'out']);
          const params: GenerateImageParams = { prompt };
          const num = int(p, 'num');
          if (num !== undefined) params.num_images = num;
          const aspect = str(p, 'aspect');
          if (aspect) params.aspect_ratio = aspect as GenerateImageParams['aspect_ratio'];
          const seed = int(p, 'seed');
          if (seed !== undefined) params.seed = seed;
          await submitted(client, p, await client.generateImage(params));
        } else throw new UsageError('generate what? video or image');
        return 0;
      }
      case 'job':
        if (!sub) throw new UsageError('job <id>');
        print(await client.getJob(sub));
        return 0;
      case 'cancel':
        if (!sub) throw new UsageError('cancel <id>');
        print(await client.cancelJob(sub));
        return 0;
      case 'models':
        print(await client.listModels());
        return 0;
      case 'account':
        print(await client.getAccount());
        return 0;
      default:
        throw new UsageError(`unknown command: ${cmd}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof JobFailedError) {
      process.stderr.write(`error: ${e.message}\n`);
      print(e.job);
      return 1;
    }
    if (e instanceof ApiError) {
      process.stderr.write(`error: ${e.name} ${e.message}${e.requestId ? ` (request ${e.requestId})` : ''}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(e as Error).message ?? String(e)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
