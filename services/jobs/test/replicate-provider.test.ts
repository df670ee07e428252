import https from 'node:https';
import type { ImageParams, VideoParams } from '@mf/contracts';
import { silentLogger } from '@mf/testing';
import { UnsupportedParameterError, type ProviderJob } from '../src/providers/provider';
import { REPLICATE_ERRORS, ReplicateProvider } from '../src/providers/replicate/replicate-provider';
import { FAKE_REPLICATE_SECRET, startFakeReplicate, type FakeReplicate } from './support/fake-replicate';
import { pollUntilSettled, startWebhookReceiver, type Webhook } from './support/fake-upstream';
import { imageJob, videoJob } from './support/provider-jobs';

const video = (prompt: string, p: Partial<VideoParams> = {}, model = 'acme/video', callbackUrl?: string): ProviderJob =>
  videoJob(prompt, { seed: 3, ...p }, { jobId: 'job_rep1', upstreamModel: model, callbackUrl });
const image = (prompt: string, p: Partial<ImageParams> = {}): ProviderJob =>
  imageJob(prompt, { seed: 9, ...p }, { jobId: 'job_rep2', upstreamModel: 'acme/image' });

describe('ReplicateProvider against a fake of Replicate’s predictions API', () => {
  let fake: FakeReplicate;
  let agent: https.Agent;
  let provider: ReplicateProvider;
  const make = (over: Partial<ConstructorParameters<typeof ReplicateProvider>[0]> = {}) =>
    new ReplicateProvider({
      name: 'rep',
      baseUrl: fake.url,
      apiKey: fake.token,
      timeoutMs: 5000,
      resultMaxBytes: 1e8,
      httpsAgent: agent,
      logger: silentLogger(),
      webhookSecret: FAKE_REPLICATE_SECRET,
      ...over,
    });
  const settle = (id: string, job: ProviderJob) => pollUntilSettled(provider, id, job);

  beforeAll(async () => {
    fake = await startFakeReplicate({ completeAfterPolls: 2 });
    agent = new https.Agent({ ca: fake.caPem });
    provider = make();
  });
  afterAll(async () => {
    await fake?.close();
    agent?.destroy();
  });

  it('creates a prediction on the model with its input, the bearer token and a completed-only webhook, then reports progress from the logs and the output URL', async () => {
    const job = video(
      'a lighthouse at dusk',
      { duration_seconds: 8, aspect_ratio: '9:16', resolution: '480p' },
      'acme/video',
      'https://api.example/api/providers/callback/job_rep1?token=t&attempt=1',
    );
    const { requestId } = await provider.submit(job);
    const call = fake.calls.find((c) => c.method === 'POST' && c.path === '/v1/models/acme/video/predictions')!;
    expect(call.headers.authorization).toBe(`Bearer ${fake.token}`);
    // generate_audio is not an input of this model: left out; the rest as the schema names them.
    expect(call.body).toEqual({
      input: { prompt: 'a lighthouse at dusk', duration: 8, aspect_ratio: '9:16', resolution: '480p', seed: 3 },
      webhook: 'https://api.example/api/providers/callback/job_rep1?token=t&attempt=1',
      webhook_events_filter: ['completed'],
    });
    const seen = await settle(requestId, job);
    expect(seen.map((s) => s.state)).toEqual(['running', 'running', 'completed']);
    expect(seen[0]).toEqual({ state: 'running', progress: 0.4 });
    expect(seen[1]).toEqual({ state: 'running', progress: 0.8 });
    expect(seen[2]).toEqual({
      state: 'completed',
      outputs: [{ kind: 'url', url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/media\/\w+\.mp4$/) }],
      // Its metrics' predict_time: the hardware seconds Replicate bills.
      usage: { computeSeconds: 2.5 },
    });
  });

  it('asks an image model for every image and returns each URL', async () => {
    const job = image('three kites', { num_images: 3, aspect_ratio: '4:3', image_urls: ['https://img.example/a.png'] });
    const { requestId } = await provider.submit(job);
    expect(fake.predictions.get(requestId)!.input).toEqual({
      prompt: 'three kites',
      aspect_ratio: '4:3',
      num_outputs: 3,
      seed: 9,
      output_format: 'png',
      input_image: 'https://img.example/a.png',
    });
    const last = (await settle(requestId, job)).pop()!;
    expect(last.state === 'completed' && last.outputs).toHaveLength(3);
  });

  it('refuses, before any prediction, a value the model’s schema does not offer, naming it', async () => {
    const before = fake.predictions.size;
    await expect(provider.submit(video('too long', { duration_seconds: 15 }))).rejects.toThrow(
      new UnsupportedParameterError('acme/video does not offer duration 15 (it offers 4, 5, 6, 8, 10)'),
    );
    await expect(provider.submit(video('too wide', { aspect_ratio: '21:9' }))).rejects.toThrow(
      UnsupportedParameterError,
    );
    await expect(
      provider.submit(image('two refs', { image_urls: ['https://a.example/1.png', 'https://a.example/2.png'] })),
    ).rejects.toThrow('acme/image takes no image_input input');
    expect(fake.predictions.size).toBe(before);
  });

  it('posts to /predictions with the version for an owner/name:version reference', async () => {
    const { requestId } = await provider.submit(video('pinned', {}, `acme/video:${'ab'.repeat(32)}`));
    expect(fake.predictions.get(requestId)!.version).toBe('ab'.repeat(32));
  });

  it('turns refusals, throttling, an unknown model and a wrong token into submit errors with our wording', async () => {
    await expect(provider.submit(video('boom [rep:submit-error]'))).rejects.toThrow(
      'replicate submit refused: HTTP 500',
    );
    await expect(provider.submit(video('slow down [rep:submit-429]'))).rejects.toThrow(
      'replicate submit refused: HTTP 429',
    );
    await expect(provider.submit(video('who', {}, 'nobody/nothing'))).rejects.toThrow('HTTP 404');
    await expect(make({ apiKey: 'wrong' }).submit(video('key'))).rejects.toThrow('HTTP 401');
  });

  it('reports a failed prediction with our message, never Replicate’s error text', async () => {
    const job = video('oom [rep:fail]');
    const { requestId } = await provider.submit(job);
    expect((await settle(requestId, job)).pop()).toEqual({ state: 'failed', error: REPLICATE_ERRORS.failed });
  });

  it('cancels a prediction upstream, which then reads as cancelled', async () => {
    const job = video('forever [rep:never]');
    const { requestId } = await provider.submit(job);
    await provider.cancel(requestId, job);
    expect(fake.calls.some((c) => c.method === 'POST' && c.path === `/v1/predictions/${requestId}/cancel`)).toBe(true);
    expect(await provider.status(requestId, job)).toEqual({ state: 'failed', error: REPLICATE_ERRORS.canceled });
  });

  /** A received webhook as the gateway hands it on: its Standard Webhooks headers and its body. */
  const deliveryOf = (hook: Webhook) => ({
    headers: {
      'webhook-id': hook.headers['webhook-id'],
      'webhook-timestamp': hook.headers['webhook-timestamp'],
      'webhook-signature': hook.headers['webhook-signature'],
    },
    body: hook.body,
  });

  it('verifies the webhook’s Standard Webhooks signature and refuses a forged, tampered or stale one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const job = video('signed', {}, 'acme/video', receiver.url);
      const { requestId } = await provider.submit(job);
      await settle(requestId, job);
      const hook = await receiver.first();
      const delivery = deliveryOf(hook);
      expect(provider.verifyCallback(delivery)).toEqual({ authentic: true, requestId, succeeded: true });
      expect(provider.verifyCallback({ ...delivery, body: hook.body.replace('succeeded', 'failed') })).toEqual({
        authentic: false,
      });
      expect(
        provider.verifyCallback({ ...delivery, headers: { ...delivery.headers, 'webhook-signature': 'v1,AAAA' } }),
      ).toEqual({ authentic: false });
      expect(provider.verifyCallback(undefined)).toEqual({ authentic: false });
      expect(
        make({ webhookSecret: `whsec_${Buffer.from('another key').toString('base64')}` }).verifyCallback(delivery),
      ).toEqual({ authentic: false });
      const stale = {
        ...delivery.headers,
        'webhook-timestamp': String(Number(delivery.headers['webhook-timestamp']) - 3600),
      };
      expect(provider.verifyCallback({ headers: stale, body: hook.body })).toEqual({ authentic: false });
      // Without a configured secret nothing is verified and the body is not read.
      expect(make({ webhookSecret: undefined }).verifyCallback(undefined)).toEqual({ authentic: true });
    } finally {
      await receiver.close();
    }
  });

  it('takes a signed webhook’s prediction as the outcome without asking Replicate, and nothing from an unverified one', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const job = video('carried', {}, 'acme/video', receiver.url);
      const { requestId } = await provider.submit(job);
      const polled = await settle(requestId, job);
      const hook = await receiver.first();
      const delivery = deliveryOf(hook);
      const calls = fake.calls.length;
      const carried = await provider.callbackResult(delivery, requestId, job);
      expect(carried).toEqual(polled[polled.length - 1]);
      expect(carried?.state).toBe('completed');
      expect(fake.calls.length).toBe(calls);
      expect(await provider.callbackResult({ ...delivery, body: hook.body.replace('a', 'b') }, requestId, job)).toBe(
        undefined,
      );
      expect(await provider.callbackResult(delivery, 'another-prediction', job)).toBeUndefined();
      expect(await make({ webhookSecret: undefined }).callbackResult(delivery, requestId, job)).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });
});
