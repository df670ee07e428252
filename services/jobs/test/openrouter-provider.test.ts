import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VideoParams } from '@mf/contracts';
import { silentLogger } from '@mf/testing';
import { OPENROUTER_ERRORS, OpenRouterProvider } from '../src/providers/openrouter/openrouter-provider';
import { signOpenRouterWebhook } from '../src/providers/openrouter/webhook-signature';
import {
  ProviderSubmitError,
  UnsupportedParameterError,
  type ProviderJob,
  type ProviderStatus,
} from '../src/providers/provider';
import { FAKE_OPENROUTER_SECRET, startFakeOpenRouter, type FakeOpenRouter } from './support/fake-openrouter';
import { pollUntilSettled, startWebhookReceiver } from './support/fake-upstream';
import { videoJob } from './support/provider-jobs';

const video = (prompt: string, p: Partial<VideoParams> = {}, model = 'acme/veo', callbackUrl?: string): ProviderJob =>
  videoJob(prompt, { duration_seconds: 8, seed: 7, ...p }, { jobId: 'job_or1', upstreamModel: model, callbackUrl });

describe('OpenRouterProvider against a fake of OpenRouter’s video API', () => {
  let fake: FakeOpenRouter;
  let agent: https.Agent;
  let provider: OpenRouterProvider;
  let dir: string;
  const make = (over: Partial<ConstructorParameters<typeof OpenRouterProvider>[0]> = {}) =>
    new OpenRouterProvider({
      name: 'or',
      baseUrl: fake.url,
      apiKey: fake.key,
      timeoutMs: 5000,
      resultMaxBytes: 1e8,
      httpsAgent: agent,
      logger: silentLogger(),
      webhookSecret: FAKE_OPENROUTER_SECRET,
      ...over,
    });
  const settle = (id: string, job: ProviderJob) => pollUntilSettled(provider, id, job);
  const callsTo = (method: string, p: string) => fake.calls.filter((c) => c.method === method && c.path === p);

  beforeAll(async () => {
    fake = await startFakeOpenRouter({ completeAfterPolls: 2 });
    agent = new https.Agent({ ca: fake.caPem });
    provider = make();
    dir = await mkdtemp(path.join(tmpdir(), 'or-test-'));
  });
  afterAll(async () => {
    await fake?.close();
    agent?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('submits the documented body with the key, follows pending and in_progress, and downloads the video from /content?index=0 with the key', async () => {
    const job = video(
      'a lighthouse at dusk',
      {},
      'acme/veo',
      'https://api.example/api/providers/callback/job_or1?token=t&attempt=1',
    );
    const { requestId } = await provider.submit(job);
    const [call] = callsTo('POST', '/api/v1/videos');
    expect(call.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(call.body).toEqual({
      model: 'acme/veo',
      prompt: 'a lighthouse at dusk',
      duration: 8,
      resolution: '720p',
      aspect_ratio: '16:9',
      generate_audio: true,
      seed: 7,
      callback_url: 'https://api.example/api/providers/callback/job_or1?token=t&attempt=1',
    });
    expect(fake.jobs.get(requestId)?.status).toBe('pending');

    // pending, then in_progress: running without a progress figure (OpenRouter reports none); then completed.
    const upstream: string[] = [];
    const seen: ProviderStatus[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(await provider.status(requestId, job));
      upstream.push(fake.jobs.get(requestId)!.status);
    }
    expect(upstream).toEqual(['pending', 'in_progress', 'completed']);
    expect(seen.slice(0, 2)).toEqual([{ state: 'running' }, { state: 'running' }]);
    expect(seen[2]).toEqual({
      state: 'completed',
      outputs: [{ kind: 'download', contentType: 'video/mp4', download: expect.any(Function) }],
      // What the generation cost, as OpenRouter says it (docs/usage.md).
      usage: { costUsd: 0.4 },
    });

    const last = seen[2];
    const file = path.join(dir, 'out.mp4');
    if (last.state === 'completed' && last.outputs[0].kind === 'download') await last.outputs[0].download(file);
    expect((await readFile(file)).subarray(4, 8).toString('latin1')).toBe('ftyp');
    const [content] = callsTo('GET', `/api/v1/videos/${requestId}/content`);
    expect(content.query).toEqual({ index: '0' });
    expect(content.headers.authorization).toBe(`Bearer ${fake.key}`);
  });

  it('starts image-to-video from a first frame, and leaves the seed out for a model that takes none', async () => {
    const { requestId } = await provider.submit(video('from this photo', { image_url: 'https://img.example/a.png' }));
    expect(fake.jobs.get(requestId)!.body.frame_images).toEqual([
      { type: 'image_url', image_url: { url: 'https://img.example/a.png' }, frame_type: 'first_frame' },
    ]);
    const wan = await provider.submit(
      video('no seed here', { duration_seconds: 5, generate_audio: false, resolution: '480p' }, 'acme/wan'),
    );
    expect(fake.jobs.get(wan.requestId)!.body).not.toHaveProperty('seed');
  });

  it('refuses, before any submit, what the model’s published capabilities do not include, naming it', async () => {
    const before = callsTo('POST', '/api/v1/videos').length;
    await expect(provider.submit(video('too long', { duration_seconds: 10 }))).rejects.toThrow(
      new UnsupportedParameterError('acme/veo does not offer duration 10 (it offers 4, 6, 8)'),
    );
    await expect(provider.submit(video('square', { aspect_ratio: '1:1' }))).rejects.toThrow(
      'acme/veo does not offer aspect ratio 1:1',
    );
    await expect(
      provider.submit(video('loud', { duration_seconds: 5, resolution: '480p' }, 'acme/wan')),
    ).rejects.toThrow('acme/wan does not generate audio');
    await expect(
      provider.submit(
        video(
          'photo',
          { duration_seconds: 5, resolution: '480p', generate_audio: false, image_url: 'https://img.example/a.png' },
          'acme/wan',
        ),
      ),
    ).rejects.toThrow('acme/wan does not start from an image');
    await expect(provider.submit(video('who', {}, 'nobody/nothing'))).rejects.toThrow(
      'openrouter lists no video model nobody/nothing',
    );
    expect(callsTo('POST', '/api/v1/videos')).toHaveLength(before);
  });

  it('turns a 5xx, a 429 and a wrong key at submit into submit errors with our wording only', async () => {
    const errors = await Promise.all([
      provider.submit(video('boom [or:submit-500]')).catch((e: unknown) => e),
      provider.submit(video('slow down [or:submit-429]')).catch((e: unknown) => e),
      make({ apiKey: 'sk-or-v1-wrong' })
        .submit(video('key'))
        .catch((e: unknown) => e),
    ]);
    expect(errors.map((e) => (e as Error).message)).toEqual([
      'openrouter submit refused: HTTP 500',
      'openrouter submit refused: HTTP 429',
      'openrouter submit refused: HTTP 401',
    ]);
    for (const e of errors) expect(e).toBeInstanceOf(ProviderSubmitError);
  });

  it.each([
    ['failed', OPENROUTER_ERRORS.failed],
    ['cancelled', OPENROUTER_ERRORS.cancelled],
    ['expired', OPENROUTER_ERRORS.expired],
  ])(
    'reports the documented terminal status %s as a failed attempt with our message, never OpenRouter’s',
    async (status, message) => {
      const job = video(`ends ${status} [or:${status}]`);
      const { requestId } = await provider.submit(job);
      const last = (await settle(requestId, job)).pop();
      expect(fake.jobs.get(requestId)!.status).toBe(status);
      expect(last).toEqual({ state: 'failed', error: message });
    },
  );

  it('throws on a poll it cannot read (an unknown job is a 404), so the poller retries rather than failing the attempt', async () => {
    await expect(provider.status('vid-unknown', video('x'))).rejects.toThrow(
      'openrouter status request failed: HTTP 404',
    );
  });

  it('has no cancel endpoint to call: a cancel sends nothing and the generation runs on upstream', async () => {
    const job = video('forever [or:never]');
    const { requestId } = await provider.submit(job);
    const before = fake.calls.length;
    await provider.cancel(requestId, job);
    expect(fake.calls.length).toBe(before);
    expect(await provider.status(requestId, job)).toEqual({ state: 'running' });
  });

  it('verifies the X-OpenRouter-Signature of its webhook and refuses a forged, tampered or stale one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const job = video('signed', {}, 'acme/veo', receiver.url);
      const { requestId } = await provider.submit(job);
      await settle(requestId, job);
      const hook = await receiver.first();
      expect(JSON.parse(hook.body)).toMatchObject({
        type: 'video.generation.completed',
        data: { id: requestId, status: 'completed' },
      });
      expect(hook.headers['x-openrouter-idempotency-key']).toBeTruthy();
      const delivery = {
        headers: { 'x-openrouter-signature': hook.headers['x-openrouter-signature'] },
        body: hook.body,
      };
      expect(provider.verifyCallback(delivery)).toEqual({ authentic: true, requestId, succeeded: true });
      expect(provider.verifyCallback({ ...delivery, body: hook.body.replace('"completed"', '"failed"') })).toEqual({
        authentic: false,
      });
      expect(
        provider.verifyCallback({
          ...delivery,
          headers: { 'x-openrouter-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
        }),
      ).toEqual({ authentic: false });
      expect(provider.verifyCallback({ headers: {}, body: hook.body })).toEqual({ authentic: false });
      expect(provider.verifyCallback(undefined)).toEqual({ authentic: false });
      expect(make({ webhookSecret: 'another secret' }).verifyCallback(delivery)).toEqual({ authentic: false });
      const stale = signOpenRouterWebhook(FAKE_OPENROUTER_SECRET, Math.floor(Date.now() / 1000) - 3600, hook.body);
      expect(provider.verifyCallback({ headers: { 'x-openrouter-signature': stale }, body: hook.body })).toEqual({
        authentic: false,
      });
      // A failed generation's webhook is authentic and says it did not succeed.
      const failed = hook.body.replace(/"completed"/g, '"failed"');
      const signed = {
        'x-openrouter-signature': signOpenRouterWebhook(FAKE_OPENROUTER_SECRET, Math.floor(Date.now() / 1000), failed),
      };
      expect(provider.verifyCallback({ headers: signed, body: failed })).toEqual({
        authentic: true,
        requestId,
        succeeded: false,
      });
      // Without a configured secret nothing is verified and the body is not read.
      expect(make({ webhookSecret: undefined }).verifyCallback(undefined)).toEqual({ authentic: true });
    } finally {
      await receiver.close();
    }
  });
});
