import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ImageParams, VideoParams } from '@mf/contracts';
import { probe, resolveFfmpeg, resolveFfprobe, runFfmpeg } from '@mf/media';
import { silentLogger } from '@mf/testing';
import { ProviderSubmitError, type ProviderJob, type ProviderStatus } from '../src/providers/provider';
import { LocalProvider, type LocalProviderDeps } from '../src/providers/local/local-provider';
import { LOCAL_ERRORS } from '../src/providers/local/render-failure';
import { renderImage } from '../src/providers/local/render-image';
import { imageSize } from '../src/providers/local/sizes';

// Renders are real ffmpeg runs; a loaded 2-core machine needs more than the default.
jest.setTimeout(120_000);

const ffmpegPath = resolveFfmpeg();
const ffprobePath = resolveFfprobe();

let root: string;
let refPng: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mf-local-provider-'));
  refPng = path.join(root, 'ref.png');
  await runFfmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240', '-frames:v', '1', '-y', refPng], {
    ffmpegPath,
    timeoutMs: 30_000,
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const providers: LocalProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

let workDirNo = 0;
/** Fetches https://refs.test/ok/* by copying the test PNG; anything under /broken/ fails. */
const fetched: Array<{ url: string; dest: string }> = [];
async function fakeFetch(url: string, dest: string): Promise<void> {
  fetched.push({ url, dest });
  if (url.includes('/broken/')) throw new Error(`connect ECONNREFUSED for ${url}`);
  if (url.includes('/text/')) return writeFile(dest, 'this is not an image');
  if (url.includes('/hang/')) return new Promise<void>(() => undefined); // a download that never ends
  return copyFile(refPng, dest);
}

interface Harness {
  provider: LocalProvider;
  workDir: string;
  starts: string[];
  ends: string[];
  maxActive: () => number;
}

function harness(over: Partial<LocalProviderDeps> = {}, workDir = path.join(root, `work-${++workDirNo}`)): Harness {
  const starts: string[] = [];
  const ends: string[] = [];
  let active = 0;
  let max = 0;
  const provider = new LocalProvider({
    workDir,
    ffmpegPath,
    concurrency: 2,
    renderTimeoutMs: 120_000,
    fetchReference: fakeFetch,
    logger: silentLogger(),
    onRenderStart: (id) => {
      starts.push(id);
      active++;
      max = Math.max(max, active);
    },
    onRenderEnd: (id) => {
      ends.push(id);
      active--;
    },
    ...over,
  });
  providers.push(provider);
  return { provider, workDir, starts, ends, maxActive: () => max };
}

function videoJob(jobId: string, params: Partial<VideoParams> = {}): ProviderJob {
  return {
    jobId,
    type: 'video',
    modelId: 'vidgen-2.0',
    mode: params.image_url ? 'image-to-video' : 'text-to-video',
    attempt: 1,
    upstreamModel: 'local',
    params: {
      prompt: 'a paper boat drifts down a rainy street',
      image_url: null,
      fast: false,
      duration_seconds: 4,
      aspect_ratio: '16:9',
      resolution: '480p',
      generate_audio: true,
      seed: 42,
      ...params,
    },
  };
}

function imageJob(jobId: string, params: Partial<ImageParams> = {}): ProviderJob {
  return {
    jobId,
    type: 'image',
    modelId: 'imagegen-2',
    mode: params.image_urls?.length ? 'image-edit' : 'text-to-image',
    attempt: 1,
    upstreamModel: 'local',
    params: {
      prompt: 'a teapot on a windowsill',
      image_urls: [],
      num_images: 1,
      aspect_ratio: '1:1',
      seed: 7,
      ...params,
    },
  };
}

/** A long render, to have something to cancel or interrupt while it runs. */
const longVideo = (jobId: string) =>
  videoJob(jobId, { duration_seconds: 15, resolution: '720p', aspect_ratio: '21:9' });

/** Polls until the request leaves running (bounded, so a stuck render fails the test). */
async function settle(
  provider: LocalProvider,
  requestId: string,
  job: ProviderJob,
): Promise<Exclude<ProviderStatus, { state: 'running' }>> {
  for (let i = 0; i < 1200; i++) {
    const status = await provider.status(requestId, job);
    if (status.state !== 'running') return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${requestId} still running`);
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1200 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!condition()) throw new Error('condition never held');
}

/** Once the request's ffmpeg has created its temporary output, ffmpeg is surely running. */
async function untilFfmpegWrites(workDir: string, jobId: string): Promise<void> {
  const dir = path.join(workDir, jobId);
  for (let i = 0; i < 1200; i++) {
    const names = await readdir(dir).catch(() => [] as string[]);
    if (names.some((n) => /^\.output.*\.tmp$/.test(n))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('ffmpeg never started writing');
}

/** Processes whose command line mentions this path (read from Linux's /proc). */
async function processesUsing(p: string): Promise<number> {
  const pids = await readdir('/proc').catch(() => [] as string[]);
  let count = 0;
  for (const pid of pids.filter((x) => /^\d+$/.test(x))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(p)) count++;
  }
  return count;
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('LocalProvider', () => {
  it('answers submit at once, reports running, then completes with one mp4 of the requested shape', async () => {
    const { provider, workDir } = harness();
    const job = videoJob('job_video1');

    const { requestId } = await provider.submit(job);
    const first = await provider.status(requestId, job);
    const done = await settle(provider, requestId, job);

    expect(requestId).toBe('local:job_video1');
    expect(first.state).toBe('running');
    const mp4 = path.join(workDir, 'job_video1', 'output.mp4');
    expect(done).toEqual({ state: 'completed', outputs: [{ kind: 'file', path: mp4, contentType: 'video/mp4' }] });
    const info = await probe(mp4, { ffprobePath });
    expect(info.video).toMatchObject({ codec: 'h264', width: 854, height: 480 });
    expect(info.audio?.codec).toBe('aac');
    expect(Math.abs(info.durationSec - 4)).toBeLessThanOrEqual(1 / 24);
  });

  it('reports real progress from ffmpeg while it renders: fractions between 0 and 1 that never go back', async () => {
    const { provider } = harness();
    const job = longVideo('job_progress1');
    const { requestId } = await provider.submit(job);
    const seen: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const status = await provider.status(requestId, job);
      if (status.state !== 'running') break;
      if (status.progress !== undefined) seen.push(status.progress);
      await new Promise((r) => setTimeout(r, 20));
    }
    const midway = seen.filter((p) => p > 0 && p < 1);
    expect(midway.length).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('renders a video without audio when generate_audio is false', async () => {
    const { provider } = harness();
    const job = videoJob('job_silent', { generate_audio: false, aspect_ratio: '9:16' });

    const done = await settle(provider, (await provider.submit(job)).requestId, job);

    const out = done.state === 'completed' ? done.outputs[0] : null;
    const info = await probe(out?.kind === 'file' ? out.path : '', { ffprobePath });
    expect(info.audio).toBeUndefined();
    expect(info.video).toMatchObject({ width: 480, height: 854 });
  });

  it('renders num_images PNGs whose seeds are seed, seed+1, …', async () => {
    const { provider, workDir } = harness();
    const job = imageJob('job_images', { num_images: 3, seed: 500, aspect_ratio: '4:3' });

    const done = await settle(provider, (await provider.submit(job)).requestId, job);

    const paths = [0, 1, 2].map((i) => path.join(workDir, 'job_images', `output-${i}.png`));
    expect(done).toEqual({
      state: 'completed',
      outputs: paths.map((p) => ({ kind: 'file', path: p, contentType: 'image/png' })),
    });
    for (const [i, p] of paths.entries()) {
      expect((await probe(p, { ffprobePath })).video).toMatchObject({ codec: 'png', width: 1152, height: 864 });
      const expected = path.join(root, `expected-${i}.png`);
      await renderImage({
        outFile: expected,
        ...imageSize('4:3'),
        prompt: 'a teapot on a windowsill',
        seed: 500 + i,
        ffmpegPath,
        timeoutMs: 60_000,
      });
      expect(await sha256(p)).toBe(await sha256(expected));
    }
  });

  it('fetches reference images into the request dir first and composes them (image edit)', async () => {
    const { provider, workDir } = harness();
    const urls = ['https://refs.test/ok/a.png', 'https://refs.test/ok/b.png'];
    const job = imageJob('job_edit', { image_urls: urls, aspect_ratio: '16:9', num_images: 2 });

    const done = await settle(provider, (await provider.submit(job)).requestId, job);

    expect(done.state).toBe('completed');
    const calls = fetched.filter((f) => urls.includes(f.url));
    expect(calls.map((c) => c.dest).sort()).toEqual([
      path.join(workDir, 'job_edit', 'ref-0'),
      path.join(workDir, 'job_edit', 'ref-1'),
    ]);
    const outputs = done.state === 'completed' ? done.outputs : [];
    expect(outputs).toHaveLength(2);
    for (const o of outputs)
      expect((await probe(o.kind === 'file' ? o.path : '', { ffprobePath })).video).toMatchObject({
        width: 1344,
        height: 768,
      });
  });

  it('animates the fetched image_url for image-to-video', async () => {
    const { provider } = harness();
    const job = videoJob('job_i2v', {
      image_url: 'https://refs.test/ok/start.png',
      aspect_ratio: '1:1',
      generate_audio: false,
    });

    const done = await settle(provider, (await provider.submit(job)).requestId, job);

    expect(fetched.some((f) => f.url === 'https://refs.test/ok/start.png')).toBe(true);
    const out = done.state === 'completed' ? done.outputs[0] : null;
    expect((await probe(out?.kind === 'file' ? out.path : '', { ffprobePath })).video).toMatchObject({
      width: 480,
      height: 480,
    });
  });

  it('never runs more renders at once than its concurrency', async () => {
    const h = harness({ concurrency: 1 });
    const jobs = [imageJob('job_c1'), imageJob('job_c2', { seed: 8 }), videoJob('job_c3', { generate_audio: false })];

    const ids = await Promise.all(jobs.map(async (j) => (await h.provider.submit(j)).requestId));
    const results = await Promise.all(jobs.map((j, i) => settle(h.provider, ids[i], j)));

    expect(results.map((r) => r.state)).toEqual(['completed', 'completed', 'completed']);
    expect(h.starts.sort()).toEqual([...ids].sort());
    expect(h.maxActive()).toBe(1);
  });

  it('cancels a running render: ffmpeg stops, the files go, and status says cancelled', async () => {
    const h = harness();
    const job = longVideo('job_cancel');
    const { requestId } = await h.provider.submit(job);
    await untilFfmpegWrites(h.workDir, 'job_cancel');
    expect(await processesUsing(path.join(h.workDir, 'job_cancel'))).toBe(1); // the ffmpeg

    await h.provider.cancel(requestId, job);

    expect(h.ends).toContain(requestId);
    expect(await processesUsing(path.join(h.workDir, 'job_cancel'))).toBe(0);
    expect(await h.provider.status(requestId, job)).toEqual({ state: 'failed', error: 'cancelled' });
    expect(await exists(path.join(h.workDir, 'job_cancel'))).toBe(false);
  });

  it('cancels a queued render before it ever starts', async () => {
    const h = harness({ concurrency: 1 });
    const running = longVideo('job_first');
    const queued = imageJob('job_queued');
    const first = await h.provider.submit(running);
    // Submitted once the first holds the only slot: two submits made together reach the queue in
    // whichever order their set-up (mkdir, references) finishes, so the second could start first.
    await until(() => h.starts.includes(first.requestId));
    const second = await h.provider.submit(queued);

    await h.provider.cancel(second.requestId, queued);
    await h.provider.cancel(first.requestId, running);

    expect(await h.provider.status(second.requestId, queued)).toEqual({ state: 'failed', error: 'cancelled' });
    expect(h.starts).not.toContain(second.requestId);
    expect(h.provider.pending).toEqual({ rendering: 0, queued: 0 });
  });

  it('cancels a request still downloading its reference without waiting for the download', async () => {
    const h = harness();
    const job = videoJob('job_hanging', { image_url: 'https://refs.test/hang/x.png' });
    const { requestId } = await h.provider.submit(job);
    await until(() => fetched.some((f) => f.url === 'https://refs.test/hang/x.png'));

    await h.provider.cancel(requestId, job);

    expect(await h.provider.status(requestId, job)).toEqual({ state: 'failed', error: 'cancelled' });
    expect(h.starts).toEqual([]);
  });

  it('answers completed from the files for a request made by an earlier instance with the same workDir', async () => {
    const first = harness();
    const job = imageJob('job_restart', { num_images: 2 });
    const { requestId } = await first.provider.submit(job);
    const done = await settle(first.provider, requestId, job);

    const second = harness({}, first.workDir);
    expect(await second.provider.status(requestId, job)).toEqual(done);
    expect(second.starts).toEqual([]);
  });

  it('renders again a request it does not know and whose outputs are missing', async () => {
    const h = harness();
    const job = videoJob('job_unknown', { generate_audio: false });

    const first = await h.provider.status('local:job_unknown', job);
    const done = await settle(h.provider, 'local:job_unknown', job);

    expect(first).toEqual({ state: 'running' });
    expect(done.state).toBe('completed');
    expect(h.starts).toEqual(['local:job_unknown']);
  });

  it('finishes on a new instance a render that an earlier instance was stopped in the middle of', async () => {
    const first = harness();
    const job = longVideo('job_interrupted');
    const { requestId } = await first.provider.submit(job);
    await untilFfmpegWrites(first.workDir, 'job_interrupted');
    await first.provider.close();

    const second = harness({}, first.workDir);
    expect(await second.provider.status(requestId, job)).toEqual({ state: 'running' });
    const done = await settle(second.provider, requestId, job);

    expect(done.state).toBe('completed');
    const out = done.state === 'completed' ? done.outputs[0] : null;
    const info = await probe(out?.kind === 'file' ? out.path : '', { ffprobePath });
    expect(Math.abs(info.durationSec - 15)).toBeLessThanOrEqual(1 / 24);
    expect((await readdir(path.join(first.workDir, 'job_interrupted'))).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('fails with a safe message, not an exception, when a reference cannot be fetched', async () => {
    const h = harness();
    const job = imageJob('job_nofetch', {
      image_urls: ['https://refs.test/ok/x.png', 'https://refs.test/broken/y.png'],
    });

    const done = await settle(h.provider, (await h.provider.submit(job)).requestId, job);

    expect(done).toEqual({ state: 'failed', error: LOCAL_ERRORS.fetch });
    expect(LOCAL_ERRORS.fetch).toBe('reference image could not be fetched');
    expect(h.starts).toEqual([]);
  });

  it('fails with "rendering failed" when the reference is not an image', async () => {
    const h = harness();
    const job = videoJob('job_notimage', { image_url: 'https://refs.test/text/x.png' });

    const done = await settle(h.provider, (await h.provider.submit(job)).requestId, job);

    expect(done).toEqual({ state: 'failed', error: 'rendering failed' });
  });

  it('fails with "rendering timed out" when ffmpeg outlives renderTimeoutMs', async () => {
    const h = harness({ renderTimeoutMs: 1 });
    const job = longVideo('job_timeout');

    const done = await settle(h.provider, (await h.provider.submit(job)).requestId, job);

    expect(done).toEqual({ state: 'failed', error: 'rendering timed out' });
    expect(await exists(path.join(h.workDir, 'job_timeout', 'output.mp4'))).toBe(false);
  });

  it('release removes the request dir', async () => {
    const h = harness();
    const job = imageJob('job_release');
    const { requestId } = await h.provider.submit(job);
    await settle(h.provider, requestId, job);

    await h.provider.release(requestId);

    expect(await exists(path.join(h.workDir, 'job_release'))).toBe(false);
  });

  it('refuses a job id that is not safe as a directory name', async () => {
    const { provider } = harness();
    await expect(provider.submit(imageJob('../escape'))).rejects.toBeInstanceOf(ProviderSubmitError);
  });

  it('answers failed for a request id that does not belong to the job', async () => {
    const { provider } = harness();
    expect(await provider.status('local:job_other', imageJob('job_mine'))).toEqual({
      state: 'failed',
      error: 'unknown request',
    });
  });
});
