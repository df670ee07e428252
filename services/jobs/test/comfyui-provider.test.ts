import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ImageParams, VideoParams } from '@mf/contracts';
import { silentLogger } from '@mf/testing';
import { COMFY_ERRORS, ComfyUiProvider } from '../src/providers/comfyui/comfyui-provider';
import {
  ProviderSubmitError,
  UnsupportedParameterError,
  type ProviderJob,
  type ProviderStatus,
} from '../src/providers/provider';
import { startFakeComfyUi, type FakeComfyUi } from './support/fake-comfyui';
import { imageJob, videoJob } from './support/provider-jobs';

const DEPLOY = path.resolve(__dirname, '../../../deploy/comfyui');

const image = (prompt: string, p: Partial<ImageParams> = {}, model = 'flux-schnell'): ProviderJob =>
  imageJob(prompt, { aspect_ratio: '16:9', seed: 42, ...p }, { jobId: 'job_comfy1', upstreamModel: model });
/** Image-to-video unless image_url is null. */
const video = (prompt: string, p: Partial<VideoParams> = {}, model = 'wan-2.1-i2v'): ProviderJob =>
  videoJob(
    prompt,
    { image_url: 'https://ref.example/start.png', resolution: '480p', generate_audio: false, seed: 3, ...p },
    { jobId: 'job_comfy2', upstreamModel: model },
  );

/** A small workflow without {{batch_size}} or {{image}}, with a preview (temp) output beside the saved one. */
const TINY = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd15.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'photo of {{prompt}}', clip: ['4', 1] } },
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: '{{seed}}',
      steps: 20,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['6', 0],
      latent_image: ['5', 0],
    },
  },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '10': { class_type: 'PreviewImage', inputs: { images: ['8', 0] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'tiny', images: ['8', 0] } },
};

async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ComfyUiProvider against a fake ComfyUI server', () => {
  let fake: FakeComfyUi;
  let dir: string;
  let workflows: string;
  let provider: ComfyUiProvider;
  const made: ComfyUiProvider[] = [];
  const make = (over: Partial<ConstructorParameters<typeof ComfyUiProvider>[0]> = {}) => {
    const p = new ComfyUiProvider({
      name: 'comfy',
      baseUrl: fake.url,
      timeoutMs: 5000,
      resultMaxBytes: 1e8,
      workflowsDir: workflows,
      logger: silentLogger(),
      fetchReference: async (url, dest) => writeFile(dest, `reference bytes of ${url}`),
      ...over,
    });
    made.push(p);
    return p;
  };
  const settle = async (id: string, job: ProviderJob, p = provider): Promise<ProviderStatus> =>
    until(async () => {
      const s = await p.status(id, job);
      return s.state === 'running' ? null : s;
    }, `prompt ${id} to end`);
  const promptCall = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/prompt').at(-1)!;
  const running = (id: string) =>
    until(() => fake.queue.find((p) => p.id === id && p.state === 'running'), `prompt ${id} to run`);
  const download = async (s: ProviderStatus, i: number): Promise<Buffer> => {
    const file = path.join(dir, `out-${Date.now()}-${i}`);
    const out = s.state === 'completed' ? s.outputs[i] : undefined;
    if (out?.kind !== 'download') throw new Error('no download');
    await out.download(file);
    return readFile(file);
  };

  beforeAll(async () => {
    fake = await startFakeComfyUi();
    dir = await mkdtemp(path.join(tmpdir(), 'comfy-test-'));
    workflows = path.join(dir, 'workflows');
    // The shipped examples, plus the test's own.
    await cp(DEPLOY, workflows, { recursive: true });
    await writeFile(path.join(workflows, 'tiny.text-to-image.json'), JSON.stringify(TINY));
    await writeFile(path.join(workflows, 'tiny.image-edit.json'), JSON.stringify(TINY));
    await writeFile(
      path.join(workflows, 'broken.text-to-image.json'),
      JSON.stringify({ ...TINY, '11': { class_type: 'NoSuchNode', inputs: {} } }),
    );
    provider = make();
  });
  afterAll(async () => {
    for (const p of made) p.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('queues the shipped text-to-image workflow filled in, follows /ws progress, and fetches every image with /view', async () => {
    const job = image('a red fox [comfy:hold]', { num_images: 2 });
    const { requestId } = await provider.submit(job);
    const body = promptCall().body as {
      prompt: Record<string, { inputs: Record<string, unknown> }>;
      client_id: string;
    };
    expect(body.prompt['5'].inputs).toEqual({ width: 1344, height: 768, batch_size: 2 });
    expect(body.prompt['6'].inputs.text).toBe('a red fox [comfy:hold]');
    expect(body.prompt['3'].inputs.seed).toBe(42);
    expect(body.prompt).not.toHaveProperty('mediaforge');

    // ComfyUI sends progress to the client id that queued the prompt, over /ws.
    await until(() => fake.connected().includes(body.client_id), 'the progress socket');
    await running(requestId);
    expect(await provider.status(requestId, job)).toEqual({ state: 'running', progress: 0 });
    fake.step(requestId, 3);
    await until(async () => {
      const s = await provider.status(requestId, job);
      return s.state === 'running' && s.progress === 0.3;
    }, 'progress 0.3');
    expect(
      fake.sent
        .get(body.client_id)!
        .filter((m) => m.type === 'progress')
        .map((m) => m.data),
    ).toEqual([1, 2, 3].map((value) => ({ value, max: 10, prompt_id: requestId, node: '3' })));

    fake.step(requestId);
    const done = await settle(requestId, job);
    expect(done).toEqual({
      state: 'completed',
      outputs: [
        expect.objectContaining({ kind: 'download', contentType: 'image/png' }),
        expect.objectContaining({ kind: 'download' }),
      ],
    });
    expect(await download(done, 0)).toEqual(await readFile(fake.media.png));
    expect(await download(done, 1)).toEqual(await readFile(fake.media.png));
    const views = fake.calls.filter((c) => c.path === '/view');
    expect(views.at(-1)!.query).toEqual({
      filename: expect.stringMatching(/^mediaforge_\d{5}_\.png$/),
      subfolder: '',
      type: 'output',
    });
  });

  it('uploads the reference with /upload/image and runs the shipped image-to-video workflow to one mp4', async () => {
    const job = video('the photo comes alive');
    const { requestId } = await provider.submit(job);
    const upload = fake.calls.find((c) => c.path === '/upload/image')!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const [name, bytes] = [...fake.uploads.entries()].at(-1)!;
    expect(name).toMatch(/^mediaforge-job_comfy2-[0-9a-f]{8}\.png$/);
    expect(bytes.toString()).toBe('reference bytes of https://ref.example/start.png');
    const graph = (promptCall().body as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt;
    expect(graph['52'].inputs.image).toBe(name);
    expect(graph['50'].inputs).toMatchObject({ width: 848, height: 480, length: 81 });
    expect(graph['54'].inputs.fps).toBe(16);

    const done = await settle(requestId, job);
    expect(done).toEqual({
      state: 'completed',
      outputs: [expect.objectContaining({ kind: 'download', contentType: 'video/mp4' })],
    });
    expect((await download(done, 0)).subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(fake.calls.filter((c) => c.path === '/view').at(-1)!.query).toMatchObject({
      subfolder: 'mediaforge',
      type: 'output',
    });
  });

  it('keeps saved outputs only (a preview’s temp files are not results)', async () => {
    const job = image('a boat', {}, 'tiny');
    const { requestId } = await provider.submit(job);
    const done = await settle(requestId, job);
    expect(done.state === 'completed' && done.outputs).toHaveLength(1);
    const entry = fake.history.get(requestId) as { outputs: Record<string, { images: { type: string }[] }> };
    expect(entry.outputs['10'].images[0].type).toBe('temp');
  });

  it('reports an execution error as a failed attempt with our message, never ComfyUI’s', async () => {
    const job = image('out of memory [comfy:fail]');
    const { requestId } = await provider.submit(job);
    const s = await settle(requestId, job);
    expect(s).toEqual({ state: 'failed', error: COMFY_ERRORS.failed });
    expect((fake.history.get(requestId) as { status: { status_str: string } }).status.status_str).toBe('error');
  });

  it('turns a validation refusal (400 with node_errors), a server error and an unreachable server into submit errors', async () => {
    await expect(provider.submit(image('x', {}, 'broken'))).rejects.toThrow('comfyui submit refused: HTTP 400');
    await expect(provider.submit(image('x', {}, 'broken'))).rejects.toBeInstanceOf(ProviderSubmitError);
    await expect(provider.submit(image('boom [comfy:500]'))).rejects.toThrow('comfyui submit refused: HTTP 500');
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(
      make({ baseUrl: `http://127.0.0.1:${port}`, progress: false }).submit(image('nobody home')),
    ).rejects.toThrow('comfyui submit failed: ECONNREFUSED');
  });

  it('refuses, before queueing anything, what the workflow cannot honour', async () => {
    const before = fake.calls.filter((c) => c.path === '/prompt' || c.path === '/upload/image').length;
    await expect(
      provider.submit(image('edit me', { image_urls: ['https://ref.example/a.png'] }, 'tiny')),
    ).rejects.toThrow('comfyui workflow tiny takes no reference image ({{image}})');
    await expect(provider.submit(image('edit me', { image_urls: ['https://ref.example/a.png'] }))).rejects.toThrow(
      new UnsupportedParameterError('no comfyui workflow flux-schnell.image-edit.json'),
    );
    await expect(provider.submit(image('three', { num_images: 3 }, 'tiny'))).rejects.toThrow(
      'comfyui workflow tiny makes one image ({{batch_size}} missing)',
    );
    await expect(provider.submit(video('from text', { image_url: null }))).rejects.toThrow(
      'no comfyui workflow wan-2.1-i2v.text-to-video.json',
    );
    await expect(provider.submit(image('no such', {}, '../escape'))).rejects.toBeInstanceOf(UnsupportedParameterError);
    expect(fake.calls.filter((c) => c.path === '/prompt' || c.path === '/upload/image')).toHaveLength(before);
    expect(() => ComfyUiProvider.checkWorkflows(workflows, 'missing-model', ['text-to-image'])).toThrow(
      'no workflow for missing-model',
    );
    expect(() => ComfyUiProvider.checkWorkflows(path.join(dir, 'nope'), 'tiny', ['text-to-image'])).toThrow(
      'does not exist',
    );
  });

  it('cancels a queued prompt by deleting it from the queue, and a running one with an interrupt naming it', async () => {
    const first = image('long render [comfy:hold]');
    const a = await provider.submit(first);
    await running(a.requestId);
    const second = image('waiting its turn [comfy:hold]');
    const b = await provider.submit(second);
    expect(fake.queue.find((p) => p.id === b.requestId)?.state).toBe('pending');

    await provider.cancel(b.requestId, second);
    expect(fake.calls.filter((c) => c.path === '/queue' && c.method === 'POST').at(-1)!.body).toEqual({
      delete: [b.requestId],
    });
    expect(fake.queue.map((p) => p.id)).toEqual([a.requestId]);
    expect(fake.calls.some((c) => c.path === '/interrupt')).toBe(false);

    await provider.cancel(a.requestId, first);
    expect(fake.calls.filter((c) => c.path === '/interrupt').map((c) => c.body)).toEqual([{ prompt_id: a.requestId }]);
    expect(fake.queue).toHaveLength(0);
    expect(await provider.status(a.requestId, first)).toEqual({ state: 'failed', error: COMFY_ERRORS.failed });
  });

  it('reads a prompt ComfyUI no longer knows (it restarted: queue and history are in memory) as lost', async () => {
    const job = image('before the restart [comfy:hold]');
    const { requestId } = await provider.submit(job);
    await running(requestId);
    fake.restart();
    expect(await provider.status(requestId, job)).toEqual({ state: 'failed', error: COMFY_ERRORS.lost });
  });

  it('answers from any replica: one that did not queue the prompt reads its end from /history, without progress', async () => {
    const job = image('seen elsewhere [comfy:hold]');
    const { requestId } = await provider.submit(job);
    await running(requestId);
    const other = make({ progress: false });
    expect(await other.status(requestId, job)).toEqual({ state: 'running', progress: undefined });
    fake.step(requestId);
    expect((await settle(requestId, job, other)).state).toBe('completed');
  });
});
