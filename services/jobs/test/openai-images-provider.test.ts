import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ImageParams } from '@mf/contracts';
import { createStorage, type Storage } from '@mf/storage';
import { silentLogger } from '@mf/testing';
import { OPENAI_IMAGES_ERRORS, OpenAiImagesProvider } from '../src/providers/openai-images/openai-images-provider';
import {
  ProviderSubmitError,
  UnsupportedParameterError,
  type ProviderJob,
  type ProviderStatus,
} from '../src/providers/provider';
import { startFakeOpenAiImages, type FakeOpenAiImages } from './support/fake-openai-images';
import { imageJob } from './support/provider-jobs';

const image = (prompt: string, p: Partial<ImageParams> = {}, model = 'gpt-image-1'): ProviderJob =>
  imageJob(prompt, { seed: 5, ...p }, { jobId: 'job_oai1', upstreamModel: model });

describe('OpenAiImagesProvider against a fake OpenAI-compatible images server', () => {
  let fake: FakeOpenAiImages;
  let dir: string;
  let storage: Storage;
  let samplePng: Buffer;
  const fetched: string[] = [];
  const make = (over: Partial<ConstructorParameters<typeof OpenAiImagesProvider>[0]> = {}) =>
    new OpenAiImagesProvider({
      name: 'oai',
      baseUrl: fake.url,
      apiKey: fake.key,
      timeoutMs: 5000,
      resultMaxBytes: 1e8,
      logger: silentLogger(),
      storage,
      requestTimeoutMs: 10_000,
      // Each reference's bytes name its URL, so the test can tell which file went where.
      fetchReference: async (url, dest) => {
        fetched.push(url);
        await writeFile(dest, `reference bytes of ${url}`);
      },
      ...over,
    });
  let provider: OpenAiImagesProvider;

  /** Polls until the request leaves running (the upstream call runs in the background). */
  const settle = async (p: OpenAiImagesProvider, id: string, job: ProviderJob): Promise<ProviderStatus> => {
    for (let i = 0; i < 200; i++) {
      const s = await p.status(id, job);
      if (s.state !== 'running') return s;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('still running');
  };
  const imagesOf = async (s: ProviderStatus): Promise<Buffer[]> => {
    const out: Buffer[] = [];
    for (const [i, o] of (s.state === 'completed' ? s.outputs : []).entries()) {
      const file = path.join(dir, `${randomUUID()}-${i}.png`);
      if (o.kind === 'download') await o.download(file);
      out.push(await readFile(file));
    }
    return out;
  };
  const last = (p: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === p).at(-1)!;

  beforeAll(async () => {
    fake = await startFakeOpenAiImages();
    dir = await mkdtemp(path.join(tmpdir(), 'oai-test-'));
    storage = createStorage({ driver: 'local', dir: path.join(dir, 'storage') });
    samplePng = await readFile(fake.media.png);
    provider = make();
  });
  afterAll(async () => {
    fake.release();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('generates with the documented JSON body and the key, takes b64_json answers, and any replica reads the staged images', async () => {
    const job = image('two foxes', { num_images: 2 });
    const { requestId } = await provider.submit(job);
    const done = await settle(provider, requestId, job);
    const call = last('/v1/images/generations');
    expect(call.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(call.body).toEqual({ model: 'gpt-image-1', prompt: 'two foxes', n: 2, size: '1024x1024' });
    expect(done).toEqual({
      state: 'completed',
      outputs: [
        expect.objectContaining({ kind: 'download', contentType: 'image/png' }),
        expect.objectContaining({ kind: 'download' }),
      ],
    });
    expect(await imagesOf(done)).toEqual([samplePng, samplePng]);

    // Another replica (same storage, never saw the call) answers the same, until the request is released.
    const other = make();
    expect((await other.status(requestId, job)).state).toBe('completed');
    expect(await storage.stat(`provider-staging/${requestId}/image-1`)).not.toBeNull();
    await provider.release(requestId);
    expect(await storage.stat(`provider-staging/${requestId}/image-1`)).toBeNull();
    expect(await storage.stat(`provider-staging/${requestId}/manifest.json`)).toBeNull();
  });

  it('fetches url answers from the server’s own origin (dall-e-3 at 16:9 asks 1792x1024) with the key', async () => {
    const job = image('a wide harbour', { aspect_ratio: '16:9' }, 'dall-e-3');
    const { requestId } = await provider.submit(job);
    const done = await settle(provider, requestId, job);
    expect(last('/v1/images/generations').body).toEqual({
      model: 'dall-e-3',
      prompt: 'a wide harbour',
      n: 1,
      size: '1792x1024',
    });
    expect(await imagesOf(done)).toEqual([samplePng]);
    const download = fake.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/generated-images/')).at(-1)!;
    expect(download.headers.authorization).toBe(`Bearer ${fake.key}`);
  });

  it('gives any other model (a LocalAI-style server) about one megapixel at the asked aspect ratio', async () => {
    const job = image('a tall tower', { aspect_ratio: '3:4' }, 'stablediffusion');
    const { requestId } = await provider.submit(job);
    expect((await settle(provider, requestId, job)).state).toBe('completed');
    expect(last('/v1/images/generations').body).toMatchObject({ model: 'stablediffusion', size: '864x1152' });
  });

  it('edits with multipart: one reference as `image`, several as `image[]`, each the fetched reference’s bytes', async () => {
    const one = image('make it night', { image_urls: ['https://ref.example/a.png'] });
    const first = await provider.submit(one);
    expect((await settle(provider, first.requestId, one)).state).toBe('completed');
    const [a] = fake.edits.slice(-1);
    expect(a.fields).toEqual({ model: 'gpt-image-1', prompt: 'make it night', n: '1', size: '1024x1024' });
    expect(a.files.map((f) => [f.field, f.type, f.bytes.toString()])).toEqual([
      ['image', 'image/png', 'reference bytes of https://ref.example/a.png'],
    ]);

    const two = image('blend these', {
      image_urls: ['https://ref.example/b.png', 'https://ref.example/c.png'],
      num_images: 2,
    });
    const second = await provider.submit(two);
    const done = await settle(provider, second.requestId, two);
    const [b] = fake.edits.slice(-1);
    expect(b.files.map((f) => [f.field, f.bytes.toString()])).toEqual([
      ['image[]', 'reference bytes of https://ref.example/b.png'],
      ['image[]', 'reference bytes of https://ref.example/c.png'],
    ]);
    expect(
      fake.calls
        .filter((c) => c.path === '/v1/images/edits')
        .every(
          (c) =>
            c.headers.authorization === `Bearer ${fake.key}` &&
            c.headers['content-type']?.startsWith('multipart/form-data; boundary='),
        ),
    ).toBe(true);
    expect(await imagesOf(done)).toEqual([samplePng, samplePng]);
    expect(fetched).toEqual(
      expect.arrayContaining(['https://ref.example/a.png', 'https://ref.example/b.png', 'https://ref.example/c.png']),
    );
  });

  it.each([
    ['a content-policy refusal (400)', '[oai:policy]'],
    ['a server error (500)', '[oai:500]'],
    ['throttling (429)', '[oai:429]'],
  ])('fails the attempt on %s with our message, never the upstream’s', async (_what, marker) => {
    const job = image(`nope ${marker}`);
    const { requestId } = await provider.submit(job);
    const s = await settle(provider, requestId, job);
    expect(s).toEqual({ state: 'failed', error: OPENAI_IMAGES_ERRORS.failed });
    // The failure is staged too: another replica reads the same outcome.
    expect(await make().status(requestId, job)).toEqual(s);
  });

  it('fails on a wrong key, on an answer without images, and never fetches a plain-http URL on another host', async () => {
    const wrong = make({ apiKey: 'sk-wrong' });
    const k = image('key');
    expect(await settle(wrong, (await wrong.submit(k)).requestId, k)).toEqual({
      state: 'failed',
      error: OPENAI_IMAGES_ERRORS.failed,
    });
    const empty = image('nothing [oai:empty]');
    expect(await settle(provider, (await provider.submit(empty)).requestId, empty)).toEqual({
      state: 'failed',
      error: OPENAI_IMAGES_ERRORS.noMedia,
    });
    const foreign = image('elsewhere [oai:foreign-url]', {}, 'stablediffusion');
    expect(await settle(provider, (await provider.submit(foreign)).requestId, foreign)).toEqual({
      state: 'failed',
      error: OPENAI_IMAGES_ERRORS.noMedia,
    });
  });

  it('refuses, before any call, what the model cannot honour; the document’s sizes override the table', async () => {
    const before = fake.calls.length;
    await expect(provider.submit(image('wide', { aspect_ratio: '16:9' }))).rejects.toThrow(
      new UnsupportedParameterError(
        'gpt-image-1 has no size for aspect ratio 16:9 (set sizes in the providers document to accept an approximation)',
      ),
    );
    await expect(provider.submit(image('two', { num_images: 2 }, 'dall-e-3'))).rejects.toThrow(
      'dall-e-3 makes at most 1 image(s) per request, not 2',
    );
    await expect(
      provider.submit(image('edit', { image_urls: ['https://ref.example/a.png'] }, 'dall-e-3')),
    ).rejects.toThrow('dall-e-3 does not edit images');
    await expect(provider.submit({ ...image('v'), type: 'video' } as unknown as ProviderJob)).rejects.toBeInstanceOf(
      ProviderSubmitError,
    );
    expect(fake.calls.length).toBe(before);

    const approx = make({ sizes: { '16:9': '1536x1024' } });
    const job = image('wide enough', { aspect_ratio: '16:9' });
    expect((await settle(approx, (await approx.submit(job)).requestId, job)).state).toBe('completed');
    expect(last('/v1/images/generations').body).toMatchObject({ size: '1536x1024' });
  });

  it('cancels by aborting the running call: the server sees the client go, and nothing is staged', async () => {
    const job = image('slow one [oai:hold]');
    const { requestId } = await provider.submit(job);
    for (
      let i = 0;
      i < 100 && !fake.calls.some((c) => (c.body as { prompt?: string } | undefined)?.prompt === 'slow one [oai:hold]');
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
    await provider.cancel(requestId);
    for (let i = 0; i < 100 && !fake.abandoned.length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(fake.abandoned).toEqual(['generations:slow one [oai:hold]']);
    await new Promise((r) => setTimeout(r, 100));
    expect(await storage.stat(`provider-staging/${requestId}/manifest.json`)).toBeNull();
  });

  it('tells a request lost with a dead replica (nothing staged past its timeout) from one still running elsewhere', async () => {
    const job = image('lost');
    const old = `oai-${Date.now() - 10_000 - 61_000}-${randomUUID()}`;
    const recent = `oai-${Date.now() - 1000}-${randomUUID()}`;
    expect(await provider.status(old, job)).toEqual({ state: 'failed', error: OPENAI_IMAGES_ERRORS.lost });
    expect(await provider.status(recent, job)).toEqual({ state: 'running' });
    expect(await provider.status('not-ours', job)).toEqual({ state: 'failed', error: OPENAI_IMAGES_ERRORS.lost });
  });
});
