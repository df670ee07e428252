import { Client } from 'pg';
import { startFakeFal, type FakeFal } from '../../services/jobs/test/support/fake-fal';
import { api, startFleet, userWithKey, type Fleet } from '../support/fleet';
import { balance, balanceBecomes, eventually, waitForJob } from '../support/jobs';
import { downloadAndProbe } from '../support/media';
import { combinedCaFile, testTls } from '../support/tls';

/** The fal provider against a fake fal queue server: every failure path ends in a refund. */
describe('generation jobs with the fal provider', () => {
  let fal: FakeFal;
  let fleet: Fleet;

  beforeAll(async () => {
    fal = await startFakeFal({ completeAfterPolls: 2 });
    fleet = await startFleet({
      PROVIDER: 'fal',
      FAL_KEY: fal.apiKey,
      FAL_QUEUE_URL: fal.url,
      ALLOW_PRIVATE_URLS: 'true',
      JOB_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '100000',
      NODE_EXTRA_CA_CERTS: combinedCaFile([fal.caPem, (await testTls()).cert]),
    });
  });
  afterAll(async () => {
    await fleet?.shutdown();
    await fal?.close();
  });

  const submitVideo = (key: string, prompt: string) =>
    api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', { key, body: { prompt, duration_seconds: 4 } });

  it('completes a job, copies the result into our storage, and keeps the charge', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const submit = await submitVideo(u.key, 'a quiet harbour');
    expect(submit.status).toBe(202);
    const job = await waitForJob(fleet, u.key, submit.body.job_id);
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect(job.result.video.startsWith(`${fleet.baseUrl}/media/`)).toBe(true);
    const media = await downloadAndProbe(job.result.video);
    expect(media.probe.video?.codec).toBe('h264');
    expect(await balance(fleet, u.key)).toBe(2000 - 4 * 227);
    const sent = fal.calls.find((c) => c.method === 'POST' && JSON.stringify(c.body).includes('a quiet harbour'));
    expect(sent?.path).toBe('/fal-ai/vidgen-2/text-to-video');
    expect(sent?.headers.authorization).toBe(`Key ${fal.apiKey}`);
    // fal is told where to call back; the callback only makes us poll the job.
    expect(String(sent?.query.fal_webhook)).toContain(`/api/providers/callback/${submit.body.job_id}?token=`);
  });

  it('copies every image of an image job', async () => {
    const u = await userWithKey(fleet, 'all', 500);
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
      key: u.key,
      body: { prompt: 'two kites', num_images: 2 },
    });
    const job = await waitForJob(fleet, u.key, submit.body.job_id);
    expect(job.result.images).toHaveLength(2);
    for (const url of job.result.images) expect((await downloadAndProbe(url)).probe.video?.codec).toBe('png');
  });

  it('answers 502 to a provider submit failure, refunds in full, and leaves no visible job', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const submit = await submitVideo(u.key, 'boom [fal:submit-error]');
    expect(submit.status).toBe(502);
    expect(submit.body).toEqual({ error: expect.stringContaining('refunded'), request_id: expect.any(String) });
    expect(await balance(fleet, u.key)).toBe(2000);
    const db = new Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
    try {
      const visible = await db.query(
        `SELECT id FROM jobs.jobs WHERE user_id = $1 AND status IN ('processing','completed','failed','cancelled')`,
        [u.userId],
      );
      expect(visible.rows).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('marks a job failed and refunds it when the provider fails after submit', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const submit = await submitVideo(u.key, 'policy [fal:fail]');
    expect(submit.status).toBe(202);
    expect(await balance(fleet, u.key)).toBe(2000 - 908);
    const job = await waitForJob(fleet, u.key, submit.body.job_id);
    expect(job).toMatchObject({
      status: 'failed',
      result: null,
      error: expect.any(String),
      completed_at: expect.any(String),
    });
    expect(job.error).not.toMatch(/content policy/); // upstream detail stays with us
    expect(await balanceBecomes(fleet, u.key, 2000)).toBe(2000);
  });

  it('fails a job that never finishes once JOB_TIMEOUT passes, and refunds it', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const submit = await submitVideo(u.key, 'forever [fal:never]');
    expect(submit.status).toBe(202);
    const job = await waitForJob(fleet, u.key, submit.body.job_id, 60_000);
    expect(job).toMatchObject({ status: 'failed', error: 'Generation timed out' });
    expect(await balanceBecomes(fleet, u.key, 2000)).toBe(2000);
    // The upstream request is cancelled too.
    expect(await eventually(() => fal.calls.some((c) => c.method === 'PUT' && c.path.endsWith('/cancel')))).toBe(true);
  });

  it('cancels a job upstream with a full refund, and answers 409 after completion', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const never = await submitVideo(u.key, 'cancel me [fal:never]');
    const cancel = await api(fleet, 'DELETE', `/api/v1/jobs/${never.body.job_id}`, { key: u.key });
    expect(cancel.body).toEqual({ job_id: never.body.job_id, status: 'cancelled', refunded_credits: 908 });
    expect(await balance(fleet, u.key)).toBe(2000);
    const until = Date.now() + 10_000;
    while (!fal.calls.some((c) => c.method === 'PUT' && c.path.includes('/cancel')) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(fal.calls.some((c) => c.method === 'PUT' && c.path.includes('/cancel'))).toBe(true);

    const done = await submitVideo(u.key, 'finish first');
    await waitForJob(fleet, u.key, done.body.job_id);
    const late = await api(fleet, 'DELETE', `/api/v1/jobs/${done.body.job_id}`, { key: u.key });
    expect(late.status).toBe(409);
    expect(await balance(fleet, u.key)).toBe(2000 - 908);
  });

  it('fails and refunds a job whose provider returns no media', async () => {
    const u = await userWithKey(fleet, 'all', 2000);
    const submit = await submitVideo(u.key, 'nothing [fal:empty]');
    const job = await waitForJob(fleet, u.key, submit.body.job_id);
    expect(job.status).toBe('failed');
    expect(await balanceBecomes(fleet, u.key, 2000)).toBe(2000);
  });
});
