import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  estimateOfVideo,
  InsufficientCreditsError,
  MediaforgeClient,
  NotFoundError,
  PermissionError,
  WebhookVerificationError,
  verifyWebhook,
} from '@mediaforge/sdk';
import { userWithKey } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { probe } from '../support/media';
import { startReceiver } from '../support/webhook-receiver';
import { sdkCli } from '../support/sdk-cli';

const run = promisify(execFile);
const CLI = sdkCli();

const until = async (what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The SDK (sdk/) and its CLI against the real fleet. */
describe('@mediaforge/sdk against the fleet', () => {
  let fleet: PooledFleet;
  const client = (key: string) => new MediaforgeClient({ baseUrl: fleet.baseUrl, apiKey: key });

  beforeAll(async () => {
    fleet = await pooledFleet();
  });
  afterAll(async () => {});

  it('generateImage + waitForJob completes; the account, models and typed errors match the contract', async () => {
    const u = await userWithKey(fleet, 'all', 1000);
    const c = client(u.key);
    const { models } = await c.listModels();
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(['vidgen-2.0', 'vidgen-2.0-fast', 'imagegen-2']));

    const sub = await c.generateImage({ prompt: 'an sdk test image', num_images: 2 });
    expect(sub).toMatchObject({
      status: 'processing',
      credits_consumed: 100,
      credits_remaining: 900,
      poll_url: `/api/v1/jobs/${sub.job_id}`,
    });
    const polls: string[] = [];
    const job = await c.waitForJob(sub.job_id, {
      intervalMs: 200,
      timeoutMs: 60_000,
      onPoll: (j) => polls.push(j.status),
    });
    expect(job).toMatchObject({ job_id: sub.job_id, status: 'completed', type: 'image', error: null });
    expect(polls[polls.length - 1]).toBe('completed');
    expect('images' in job.result! && job.result.images).toHaveLength(2);
    expect(await c.getAccount()).toMatchObject({ credits_remaining: 900, credits_used_this_period: 100 });

    const missing = await c.getJob('job_doesnotexist').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, body: { error: 'Job not found' }, requestId: expect.any(String) });

    const ro = await userWithKey(fleet, 'models:read', 1000);
    const denied = await client(ro.key)
      .generateVideo({ prompt: 'x' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PermissionError);
    expect((denied as PermissionError).requiredScope).toBe('video:write');
  });

  it('InsufficientCreditsError carries credits_required and credits_remaining', async () => {
    const u = await userWithKey(fleet, 'all', 10);
    const err = await client(u.key)
      .generateVideo({ prompt: 'too expensive', duration_seconds: 5, resolution: '720p' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expect(err).toMatchObject({
      status: 402,
      creditsRequired: 1135,
      creditsRemaining: 10,
      body: { credits_required: 1135, credits_remaining: 10 },
    });
  });

  it("verifyWebhook accepts the dispatcher's real deliveries and refuses tampered or stale ones", async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      const set = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      const secret = String(set.secret);
      const c = client(u.key);

      const done = await c.generateImage({ prompt: 'webhook via sdk' });
      const job = await c.waitForJob(done.job_id, { intervalMs: 200 });
      const long = await c.generateVideo({ prompt: 'cancel me', duration_seconds: 15 });
      expect(await c.cancelJob(long.job_id)).toMatchObject({
        job_id: long.job_id,
        status: 'cancelled',
        refunded_credits: long.credits_consumed,
      });
      await until('both deliveries', () => receiver.received.length >= 2);

      const completed = receiver.received.find((r) => r.headers['x-service-event'] === 'job.completed')!;
      const event = verifyWebhook({ payload: completed.rawBody, headers: completed.headers, secret });
      expect(event).toMatchObject({ type: 'job.completed', id: completed.headers['x-service-event-id'], attempt: 1 });
      // The Job object's fields (its input and progress aside: webhooks are sent once a job ended),
      // with the upstream endpoint path as model.
      const { input: _input, progress: _progress, ...jobFields } = job;
      expect(event.data).toEqual({ ...jobFields, model: 'fal-ai/imagegen-2' });
      // A Buffer body works the same.
      expect(
        verifyWebhook({ payload: Buffer.from(completed.rawBody), headers: completed.headers, secret }).data.job_id,
      ).toBe(done.job_id);

      const cancelled = receiver.received.find((r) => r.headers['x-service-event'] === 'job.cancelled')!;
      expect(verifyWebhook({ payload: cancelled.rawBody, headers: cancelled.headers, secret })).toMatchObject({
        type: 'job.cancelled',
        data: { job_id: long.job_id, status: 'cancelled', result: null },
      });

      // Tampered body, another secret, a replay past the tolerance: refused.
      expect(() =>
        verifyWebhook({
          payload: completed.rawBody.replace('"completed"', '"failed"'),
          headers: completed.headers,
          secret,
        }),
      ).toThrow(WebhookVerificationError);
      expect(() =>
        verifyWebhook({ payload: completed.rawBody, headers: completed.headers, secret: 'whsec_other' }),
      ).toThrow(/signature mismatch/);
      // Measured from the signature's own timestamp: a slow receipt under load must not shift the window.
      const signedAtMs = Number(completed.headers['x-service-timestamp']) * 1000;
      expect(() =>
        verifyWebhook({ payload: completed.rawBody, headers: completed.headers, secret, now: signedAtMs + 301_000 }),
      ).toThrow(/too old/);
      expect(() =>
        verifyWebhook({ payload: completed.rawBody, headers: completed.headers, secret, now: signedAtMs - 301_000 }),
      ).toThrow(/future/);
      const { 'x-service-signature': _sig, ...unsigned } = completed.headers;
      expect(() => verifyWebhook({ payload: completed.rawBody, headers: unsigned, secret })).toThrow(/missing/);
    } finally {
      await receiver.close();
    }
  });

  it('prices a generation with client.estimate and `mediaforge estimate`, charging nothing', async () => {
    const u = await userWithKey(fleet, 'all', 1000);
    const c = client(u.key);
    expect(await c.estimate(estimateOfVideo({ prompt: 'a fox', fast: true, duration_seconds: 4 }))).toEqual({
      model: 'vidgen-2.0-fast',
      credits: 724,
      credits_remaining: 1000,
      affordable: true,
    });
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MEDIAFORGE_API_KEY: u.key,
      MEDIAFORGE_BASE_URL: fleet.baseUrl,
    };
    const video = await run(process.execPath, [...CLI, 'estimate', 'video', '--prompt', 'a fox', '--duration', '10'], {
      env,
    });
    expect(JSON.parse(video.stdout)).toEqual({
      model: 'vidgen-2.0',
      credits: 2270,
      credits_remaining: 1000,
      affordable: false,
      reason: 'insufficient_credits',
    });
    const image = await run(process.execPath, [...CLI, 'estimate', 'image', '--prompt', 'a bike', '--num', '4'], {
      env,
    });
    expect(JSON.parse(image.stdout)).toEqual({
      model: 'imagegen-2',
      credits: 200,
      credits_remaining: 1000,
      affordable: true,
    });
    await expect(
      run(process.execPath, [...CLI, 'estimate', 'video', '--prompt', 'a fox', '--wait'], { env }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--wait/),
    });
    expect((await c.getAccount()).credits_remaining).toBe(1000);
  });

  it('the CLI turns a prompt into a playable mp4', async () => {
    const u = await userWithKey(fleet, 'all', 10_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-cli-'));
    try {
      const out = path.join(dir, 'clip.mp4');
      const { stdout, stderr } = await run(
        process.execPath,
        [
          ...CLI,
          'generate',
          'video',
          '--prompt',
          'a lighthouse at dusk, slow dolly in',
          '--duration',
          '4',
          '--resolution',
          '480p',
          '--wait',
          '--out',
          out,
        ],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            MEDIAFORGE_API_KEY: u.key,
            MEDIAFORGE_BASE_URL: fleet.baseUrl,
          },
          timeout: 110_000,
        },
      );
      const printed = JSON.parse(stdout);
      expect(printed).toMatchObject({
        status: 'completed',
        type: 'video',
        files: [{ file: out, bytes: fs.statSync(out).size }],
      });
      // Not a TTY: one progress line per status.
      expect(stderr).toMatch(new RegExp(`${printed.job_id}: processing`));
      expect(stderr).toMatch(new RegExp(`${printed.job_id}: completed`));
      const p = await probe(out);
      expect(p.video).toEqual({ codec: 'h264', width: 854, height: 480 });
      expect(p.audio?.codec).toBe('aac');
      expect(p.duration).toBeGreaterThan(3.8);
      expect(p.duration).toBeLessThan(4.3);

      const account = await run(process.execPath, [...CLI, 'account'], {
        env: { PATH: process.env.PATH, MEDIAFORGE_API_KEY: u.key, MEDIAFORGE_BASE_URL: fleet.baseUrl },
      });
      expect(JSON.parse(account.stdout)).toMatchObject({ credits_remaining: 10_000 - 4 * 101 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
