import { api, userWithKey, type TestUser } from '../support/fleet';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { balance, balanceBecomes, waitForJob } from '../support/jobs';
import { downloadAndProbe } from '../support/media';

/** Generation end to end with the embedded local provider (real ffmpeg renders). */
describe('generation jobs with the local provider', () => {
  let fleet: PooledFleet;
  let user: TestUser;

  beforeAll(async () => {
    fleet = await pooledFleet();
    user = await userWithKey(fleet, 'all', 10_000);
  });
  afterAll(async () => {});

  it('renders a 5 s 720p 16:9 video with audio, charged 1,135 credits, served from our storage', async () => {
    const before = await balance(fleet, user.key);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: user.key,
      body: { prompt: 'a red fox running through snow', seed: 7 },
    });
    expect(submit.status).toBe(202);
    expect(submit.body).toEqual({
      job_id: expect.stringMatching(/^job_/),
      status: 'processing',
      model: 'vidgen-2.0',
      credits_consumed: 1135,
      credits_remaining: before - 1135,
      poll_url: `/api/v1/jobs/${submit.body.job_id}`,
    });

    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    expect(job).toEqual({
      job_id: submit.body.job_id,
      status: 'completed',
      model: 'VidGen 2.0',
      type: 'video',
      credits_consumed: 1135,
      created_at: expect.any(String),
      completed_at: expect.any(String),
      result: { video: expect.stringMatching(new RegExp(`^${fleet.baseUrl}/media/jobs/${submit.body.job_id}/`)) },
      error: null,
      input: {
        prompt: 'a red fox running through snow',
        image_url: null,
        fast: false,
        duration_seconds: 5,
        aspect_ratio: '16:9',
        resolution: '720p',
        generate_audio: true,
        seed: 7,
      },
      source: 'api',
      project_id: null,
      progress: 100,
    });
    const media = await downloadAndProbe(job.result.video);
    expect(media.contentType).toBe('video/mp4');
    expect(media.probe.video).toMatchObject({ width: 1280, height: 720, codec: 'h264' });
    expect(media.probe.audio).toMatchObject({ codec: 'aac' });
    expect(Math.abs(media.probe.duration - 5)).toBeLessThan(0.1);
    // No refund after a successful completion.
    expect(await balance(fleet, user.key)).toBe(before - 1135);
  });

  it('renders no audio stream when generate_audio is false', async () => {
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: user.key,
      body: { prompt: 'silent waves', duration_seconds: 4, generate_audio: false },
    });
    expect(submit.status).toBe(202);
    expect(submit.body.credits_consumed).toBe(4 * 227);
    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    const media = await downloadAndProbe(job.result.video);
    expect(media.probe.audio).toBeUndefined();
    expect(Math.abs(media.probe.duration - 4)).toBeLessThan(0.1);
  });

  it('renders a 9:16 480p video in portrait, at 101 credits per second', async () => {
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: user.key,
      body: { prompt: 'a tall lighthouse', aspect_ratio: '9:16', resolution: '480p' },
    });
    expect(submit.body.credits_consumed).toBe(505);
    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    const media = await downloadAndProbe(job.result.video);
    expect(media.probe.video).toMatchObject({ width: 480, height: 854 });
  });

  it('charges the fast model 181 per second', async () => {
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: user.key,
      body: { prompt: 'fast', fast: true },
    });
    expect(submit.body).toMatchObject({ model: 'vidgen-2.0-fast', credits_consumed: 905 });
    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    expect(job).toMatchObject({ status: 'completed', model: 'VidGen 2.0 Fast' });
  });

  it('makes 3 PNGs of the asked aspect for num_images 3, at 50 credits each', async () => {
    const before = await balance(fleet, user.key);
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: user.key,
      body: { prompt: 'three moons', num_images: 3, aspect_ratio: '16:9' },
    });
    expect(submit.status).toBe(202);
    expect(submit.body).toMatchObject({ model: 'imagegen-2', credits_consumed: 150, credits_remaining: before - 150 });
    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    expect(job).toMatchObject({ status: 'completed', type: 'image', model: 'ImageGen 2' });
    expect(job.result.images).toHaveLength(3);
    for (const url of job.result.images) {
      const media = await downloadAndProbe(url);
      expect(media.contentType).toBe('image/png');
      expect(media.probe.video).toMatchObject({ width: 1344, height: 768, codec: 'png' });
    }
    expect(await balance(fleet, user.key)).toBe(before - 150);
  });

  it('serves results with ranges, so a browser can seek in a video', async () => {
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: user.key,
      body: { prompt: 'seek me', duration_seconds: 4, resolution: '480p' },
    });
    const job = await waitForJob(fleet, user.key, submit.body.job_id);
    const full = await fetch(job.result.video);
    const size = Number(full.headers.get('content-length'));
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(full.headers.get('etag')).toBeTruthy();
    const part = await fetch(job.result.video, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
  });

  it('cancels a processing job with a full refund, then answers 409 to a second cancel', async () => {
    const u = await userWithKey(fleet, 'video:write', 5000);
    const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
      key: u.key,
      body: { prompt: 'to be cancelled', duration_seconds: 15 },
    });
    expect(submit.status).toBe(202);
    expect(await balance(fleet, u.key)).toBe(5000 - 15 * 227);
    const cancel = await api(fleet, 'DELETE', `/api/v1/jobs/${submit.body.job_id}`, { key: u.key });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ job_id: submit.body.job_id, status: 'cancelled', refunded_credits: 15 * 227 });
    expect(await balance(fleet, u.key)).toBe(5000);
    const job = await api(fleet, 'GET', `/api/v1/jobs/${submit.body.job_id}`, { key: u.key });
    expect(job.body).toMatchObject({ status: 'cancelled', result: null, completed_at: expect.any(String) });
    const again = await api(fleet, 'DELETE', `/api/v1/jobs/${submit.body.job_id}`, { key: u.key });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already cancelled/);
    expect(await balance(fleet, u.key)).toBe(5000);
  });

  it('answers 409 to cancelling a completed job, and refunds nothing', async () => {
    const u = await userWithKey(fleet, 'image:write', 100);
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'done already' },
    });
    await waitForJob(fleet, u.key, submit.body.job_id);
    const cancel = await api(fleet, 'DELETE', `/api/v1/jobs/${submit.body.job_id}`, { key: u.key });
    expect(cancel.status).toBe(409);
    expect(await balance(fleet, u.key)).toBe(50);
  });

  it("answers 404 for another user's job, an unknown job and a malformed id", async () => {
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: user.key,
      body: { prompt: 'mine' },
    });
    const other = await userWithKey(fleet, 'all', 100);
    for (const [method, path] of [
      ['GET', `/api/v1/jobs/${submit.body.job_id}`],
      ['DELETE', `/api/v1/jobs/${submit.body.job_id}`],
      ['GET', '/api/v1/jobs/job_doesnotexist'],
      ['GET', '/api/v1/jobs/..%2F..%2Fetc%2Fpasswd'],
      ['GET', "/api/v1/jobs/job_1' OR '1'='1"],
    ]) {
      const res = await api(fleet, method, path, { key: other.key });
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, { error: 'Job not found' }]);
    }
    expect(await balance(fleet, other.key)).toBe(100);
  });

  it('lets exactly 3 of 10 simultaneous submits through a balance that covers 3', async () => {
    const u = await userWithKey(fleet, 'image:write', 150);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api(fleet, 'POST', '/api/v1/image/imagegen/generate', { key: u.key, body: { prompt: `race ${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 202, 402, 402, 402, 402, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) {
      expect(r.body).toEqual({
        error: 'Insufficient credits',
        credits_required: 50,
        credits_remaining: expect.any(Number),
      });
    }
    expect(await balance(fleet, u.key)).toBe(0);
  });

  it('animates a reference image for image-to-video', async () => {
    const { startReferenceServer } = await import('../support/reference-server');
    const ref = await startReferenceServer();
    try {
      const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: user.key,
        body: { prompt: 'bring it to life', image_url: `${ref.url}/ref.png`, duration_seconds: 4, resolution: '480p' },
      });
      expect(submit.status).toBe(202);
      const job = await waitForJob(fleet, user.key, submit.body.job_id);
      expect(job.status).toBe('completed');
      expect(ref.requests()).toContain('/ref.png');
      const media = await downloadAndProbe(job.result.video);
      expect(media.probe.video).toMatchObject({ width: 854, height: 480 });
    } finally {
      await ref.close();
    }
  });

  it('fails a job whose reference cannot be fetched, and refunds it', async () => {
    const u = await userWithKey(fleet, 'video:write', 1000);
    const { startReferenceServer } = await import('../support/reference-server');
    const ref = await startReferenceServer();
    try {
      const submit = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: u.key,
        body: { prompt: 'missing ref', image_url: `${ref.url}/missing.png`, duration_seconds: 4, resolution: '480p' },
      });
      expect(submit.status).toBe(202);
      const job = await waitForJob(fleet, u.key, submit.body.job_id);
      expect(job).toMatchObject({ status: 'failed', result: null, error: expect.any(String) });
      expect(await balanceBecomes(fleet, u.key, 1000)).toBe(1000);
    } finally {
      await ref.close();
    }
  });
});
