import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import axios from 'axios';
import type { ImageParams, VideoParams } from '@mf/contracts';
import { silentLogger } from '@mf/testing';
import { FAL_FAILURE_MESSAGE, FAL_NO_MEDIA_MESSAGE, FalProvider } from '../src/providers/fal/fal-provider';
import { ProviderSubmitError, type ProviderJob } from '../src/providers/provider';
import { FAKE_FAL_KEY, startFakeFal, type FakeFal } from './support/fake-fal';
import { pollUntilSettled as pollStatus } from './support/fake-upstream';
import { imageJob as sharedImageJob, videoJob as sharedVideoJob } from './support/provider-jobs';

const VIDEO_ENDPOINT = 'fal-ai/vidgen-2/text-to-video';
const FAST_ENDPOINT = 'fal-ai/vidgen-2/fast/text-to-video';
const IMAGE_ENDPOINT = 'fal-ai/imagegen-2';

const videoJob = (
  prompt: string,
  params: Partial<VideoParams> = {},
  extra: { upstreamModel?: string; callbackUrl?: string } = {},
): ProviderJob =>
  sharedVideoJob(prompt, params, {
    upstreamModel: extra.upstreamModel ?? VIDEO_ENDPOINT,
    callbackUrl: extra.callbackUrl,
  });
const imageJob = (prompt: string, params: Partial<ImageParams> = {}): ProviderJob =>
  sharedImageJob(prompt, params, { upstreamModel: IMAGE_ENDPOINT });

describe('FalProvider against a fake fal queue', () => {
  let fake: FakeFal;
  let agent: https.Agent;
  let provider: FalProvider;
  const logger = silentLogger();

  const providerWith = (over: { apiKey?: string; queueUrl?: string; timeoutMs?: number } = {}): FalProvider =>
    new FalProvider({ queueUrl: fake.url, apiKey: FAKE_FAL_KEY, logger, timeoutMs: 5000, httpsAgent: agent, ...over });

  /** Polls until the provider stops saying running (or gives up), returning every answer. */
  const pollUntilSettled = (requestId: string, job: ProviderJob, max = 10) => pollStatus(provider, requestId, job, max);

  const fetchBytes = async (url: string) => {
    const res = await axios.get<ArrayBuffer>(url, { httpsAgent: agent, responseType: 'arraybuffer' });
    return { contentType: String(res.headers['content-type']), bytes: Buffer.from(res.data) };
  };

  const callsTo = (method: string, path: string) => fake.calls.filter((c) => c.method === method && c.path === path);

  beforeAll(async () => {
    fake = await startFakeFal();
    agent = new https.Agent({ ca: fake.caPem });
    provider = providerWith();
  });

  afterAll(async () => {
    await fake?.close();
    agent?.destroy();
  });

  it('submits a video to its endpoint with the key, fal input fields and the webhook URL', async () => {
    const callbackUrl = 'http://127.0.0.1:9/internal/fal-callback?job_id=job_video1&token=a b&x=1';
    const job = videoJob(
      'a red kite over hills',
      {
        image_url: 'https://img.example/start.png',
        duration_seconds: 10,
        resolution: '480p',
        aspect_ratio: '9:16',
        generate_audio: false,
        seed: 99,
      },
      {
        upstreamModel: 'fal-ai/vidgen-2/image-to-video',
        callbackUrl,
      },
    );

    const { requestId } = await provider.submit(job);

    const [call] = fake.calls.filter(
      (c) =>
        c.method === 'POST' &&
        c.body !== undefined &&
        (c.body as { prompt?: string }).prompt === 'a red kite over hills',
    );
    expect(call.path).toBe('/fal-ai/vidgen-2/image-to-video');
    expect(call.headers.authorization).toBe(`Key ${FAKE_FAL_KEY}`);
    expect(call.body).toEqual({
      prompt: 'a red kite over hills',
      duration: '10',
      aspect_ratio: '9:16',
      resolution: '480p',
      generate_audio: false,
      seed: 99,
      image_url: 'https://img.example/start.png',
    });
    // The whole callback URL (its own query included) arrives as one parameter value.
    expect(call.query).toEqual({ fal_webhook: callbackUrl });
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves out an absent start image, empty reference images and the webhook when there is no callback', async () => {
    await provider.submit(videoJob('no start image'));
    await provider.submit(imageJob('no references', { num_images: 2, aspect_ratio: '4:3' }));
    await provider.submit(
      imageJob('with references', { image_urls: ['https://img.example/a.png', 'https://img.example/b.png'] }),
    );

    const bodyOf = (prompt: string) =>
      fake.calls.find((c) => c.method === 'POST' && (c.body as { prompt?: string } | undefined)?.prompt === prompt);
    expect(bodyOf('no start image')?.body).toEqual({
      prompt: 'no start image',
      duration: '5',
      aspect_ratio: '16:9',
      resolution: '720p',
      generate_audio: true,
      seed: 42,
    });
    expect(bodyOf('no start image')?.query).toEqual({});
    expect(bodyOf('no references')?.path).toBe('/fal-ai/imagegen-2');
    expect(bodyOf('no references')?.body).toEqual({
      prompt: 'no references',
      num_images: 2,
      aspect_ratio: '4:3',
      seed: 7,
    });
    expect(bodyOf('with references')?.body).toEqual({
      prompt: 'with references',
      num_images: 1,
      aspect_ratio: '1:1',
      seed: 7,
      image_urls: ['https://img.example/a.png', 'https://img.example/b.png'],
    });
  });

  it('reports a video running while fal works, then completed with an https URL to a real mp4', async () => {
    const job = videoJob('a fast clip', { fast: true }, { upstreamModel: FAST_ENDPOINT });
    const { requestId } = await provider.submit(job);

    const seen = await pollUntilSettled(requestId, job);

    // In fal's queue first (its position is not progress: the Job shows it as queue_position), then working.
    expect(seen.slice(0, -1)).toEqual([{ state: 'running', queuePosition: 0 }, { state: 'running' }]);
    const last = seen[seen.length - 1];
    expect(last).toEqual({
      state: 'completed',
      outputs: [{ kind: 'url', url: `${fake.url}/media/${requestId}.mp4`, contentType: 'video/mp4' }],
      // The units fal billed, from its result's x-fal-billable-units.
      usage: { billedUnits: 1 },
    });
    // Request paths use the app id, not the endpoint's subpath.
    expect(callsTo('GET', `/fal-ai/vidgen-2/requests/${requestId}/status`)).toHaveLength(3);
    expect(callsTo('GET', `/fal-ai/vidgen-2/requests/${requestId}`)).toHaveLength(1);
    expect(
      callsTo('GET', `/fal-ai/vidgen-2/requests/${requestId}/status`).every(
        (c) => c.headers.authorization === `Key ${FAKE_FAL_KEY}`,
      ),
    ).toBe(true);

    const output = last.state === 'completed' ? last.outputs[0] : undefined;
    const media = await fetchBytes(output?.kind === 'url' ? output.url : '');
    expect(media.contentType).toBe('video/mp4');
    expect(media.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(media.bytes.length).toBeGreaterThan(10_000);
  });

  it('completes an image job with one URL per requested image, each a real png', async () => {
    const job = imageJob('three cats', { num_images: 3 });
    const { requestId } = await provider.submit(job);

    const last = (await pollUntilSettled(requestId, job)).pop();

    expect(last?.state).toBe('completed');
    const outputs = last?.state === 'completed' ? last.outputs : [];
    expect(outputs).toHaveLength(3);
    expect(new Set(outputs.map((o) => (o.kind === 'url' ? o.url : ''))).size).toBe(3);
    for (const o of outputs) {
      expect(o).toMatchObject({ kind: 'url', contentType: 'image/png' });
      const media = await fetchBytes(o.kind === 'url' ? o.url : '');
      expect(media.contentType).toBe('image/png');
      expect(media.bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(
        true,
      );
    }
  });

  it('throws ProviderSubmitError, without the upstream body, when fal answers 500 to a submit', async () => {
    const err = await provider.submit(videoJob('boom [fal:submit-error]')).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderSubmitError);
    expect((err as Error).message).toMatch(/500/);
    expect((err as Error).message).not.toMatch(/internal/);
  });

  it('throws ProviderSubmitError, without the validation detail, when fal answers 422 to a submit', async () => {
    const err = await provider.submit(videoJob('bad duration [fal:submit-422]')).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderSubmitError);
    expect((err as Error).message).toMatch(/422/);
    expect(JSON.stringify({ message: (err as Error).message, cause: (err as ProviderSubmitError).cause })).not.toMatch(
      /permitted|duration/,
    );
  });

  it('throws ProviderSubmitError when fal accepts a submit without a request id', async () => {
    await expect(provider.submit(videoJob('no id [fal:submit-no-id]'))).rejects.toBeInstanceOf(ProviderSubmitError);
  });

  it('throws ProviderSubmitError when fal rejects the key, and keeps the key out of the error', async () => {
    const wrongKey = 'wrong-key-0123456789';
    const err = await providerWith({ apiKey: wrongKey })
      .submit(videoJob('wrong key'))
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderSubmitError);
    expect((err as Error).message).toMatch(/401/);
    expect(
      JSON.stringify({ message: (err as Error).message, cause: (err as ProviderSubmitError).cause }),
    ).not.toContain(wrongKey);
    expect(fake.calls.at(-1)?.headers.authorization).toBe(`Key ${wrongKey}`);
  });

  it('reports failed with a safe message when fal refuses the result of a completed request', async () => {
    const job = videoJob('forbidden scene [fal:fail]');
    const { requestId } = await provider.submit(job);

    const last = (await pollUntilSettled(requestId, job)).pop();

    expect(last).toEqual({ state: 'failed', error: FAL_FAILURE_MESSAGE });
    expect(JSON.stringify(last)).not.toMatch(/content policy/);
  });

  it('keeps reporting running while fal never finishes', async () => {
    const job = videoJob('endless [fal:never]');
    const { requestId } = await provider.submit(job);

    const seen = await pollUntilSettled(requestId, job, 6);

    expect(seen).toEqual(Array.from({ length: 6 }, () => ({ state: 'running' })));
  });

  it('reports failed when a completed result carries no media', async () => {
    const job = imageJob('nothing [fal:empty]');
    const { requestId } = await provider.submit(job);

    const last = (await pollUntilSettled(requestId, job)).pop();

    expect(last).toEqual({ state: 'failed', error: FAL_NO_MEDIA_MESSAGE });
  });

  it('throws on a 503 status poll instead of reporting failed, and recovers on the next poll', async () => {
    const job = videoJob('wobbly [fal:flaky-status]');
    const { requestId } = await provider.submit(job);

    const first = await provider.status(requestId, job).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Error);
    expect(first).not.toBeInstanceOf(ProviderSubmitError);
    expect((first as Error).message).toMatch(/503/);

    const last = (await pollUntilSettled(requestId, job)).pop();
    expect(last?.state).toBe('completed');
  });

  it('cancels with a PUT on the request, after which fal never reports it completed', async () => {
    const job = videoJob('changed my mind', {}, { upstreamModel: FAST_ENDPOINT });
    const { requestId } = await provider.submit(job);
    await provider.status(requestId, job);

    await provider.cancel(requestId, job);

    const puts = callsTo('PUT', `/fal-ai/vidgen-2/requests/${requestId}/cancel`);
    expect(puts).toHaveLength(1);
    expect(puts[0].headers.authorization).toBe(`Key ${FAKE_FAL_KEY}`);
    expect((await pollUntilSettled(requestId, job, 5)).map((s) => s.state)).toEqual(
      Array.from({ length: 5 }, () => 'running'),
    );
  });

  it('swallows cancel failures: an unknown request and an unreachable fal', async () => {
    const closedPort = await freePort();
    const job = videoJob('cancel nothing');

    await expect(provider.cancel('00000000-0000-4000-8000-000000000000', job)).resolves.toBeUndefined();
    await expect(
      providerWith({ queueUrl: `https://127.0.0.1:${closedPort}` }).cancel('00000000-0000-4000-8000-000000000000', job),
    ).resolves.toBeUndefined();
    expect(callsTo('PUT', '/fal-ai/vidgen-2/requests/00000000-0000-4000-8000-000000000000/cancel')).toHaveLength(1);
  });

  it('throws, rather than reporting failed, when fal is unreachable or does not answer in time', async () => {
    const job = videoJob('network trouble');
    const closedPort = await freePort();
    const silent = await silentServer();
    try {
      const unreachable = providerWith({ queueUrl: `https://127.0.0.1:${closedPort}` });
      const hanging = providerWith({ queueUrl: `https://127.0.0.1:${silent.port}`, timeoutMs: 300 });

      await expect(unreachable.status('00000000-0000-4000-8000-000000000000', job)).rejects.toThrow(/ECONNREFUSED/);
      const started = Date.now();
      await expect(hanging.status('00000000-0000-4000-8000-000000000000', job)).rejects.toThrow(
        /fal status request failed/,
      );
      expect(Date.now() - started).toBeLessThan(3000);
      await expect(unreachable.submit(job)).rejects.toBeInstanceOf(ProviderSubmitError);
      await expect(hanging.submit(job)).rejects.toBeInstanceOf(ProviderSubmitError);
    } finally {
      await silent.close();
    }
  });

  it('refuses a malformed request id without calling fal', async () => {
    const before = fake.calls.length;

    await expect(provider.status('../../other/app', videoJob('x'))).rejects.toThrow(/request id/);
    expect(fake.calls.length).toBe(before);
  });

  it('has fal deliver the webhook to the callback URL once the request completes', async () => {
    const received: unknown[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb?job_id=job_video1&token=t`;
      const job = videoJob('tell me when done', {}, { callbackUrl });
      const { requestId } = await provider.submit(job);

      await waitFor(() => received.length > 0, 5000);

      expect(received[0]).toMatchObject({
        request_id: requestId,
        status: 'OK',
        payload: { video: { url: `${fake.url}/media/${requestId}.mp4` } },
      });
      expect(fake.webhooksSent).toContain(callbackUrl);
      // Completed by the webhook timer: the very next poll sees the result.
      expect(await provider.status(requestId, job)).toMatchObject({ state: 'completed' });
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('lets a child process trust the fake through NODE_EXTRA_CA_CERTS pointed at caPath', async () => {
    const script = `require('https').get(process.argv[1], (r) => { console.log(r.statusCode); r.resume(); }).on('error', (e) => { console.log(e.code); process.exitCode = 1; });`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-e', script, `${fake.url}/fal-ai/vidgen-2/requests/x/status`],
      {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: fake.caPath },
      },
    );

    expect(stdout.trim()).toBe('401');
  });
});

/** A port nothing listens on (bound once, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never says a word (not even the TLS handshake). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
