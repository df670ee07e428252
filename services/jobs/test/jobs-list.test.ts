import { jobsRpc, type ListJobsRequest } from '@mf/contracts';
import { serveJobsRpc } from '../src/messaging/jobs-rpc.server';
import { cancelJob } from '../src/usecases/cancel-job.usecase';
import { listJobs } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { startHarness, type Harness } from './support/jobs-harness';

const image = (user: number, apiKeyId: number, prompt: string) => ({
  user_id: user,
  api_key_id: apiKeyId,
  type: 'image' as const,
  params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
});

/** jobs.list: the dashboard's list of a user's jobs, against the real database and broker. */
describe('listing jobs', () => {
  let h: Harness;
  let user = 500;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const newUser = (credits: number): number => {
    user++;
    h.billing.balances.set(user, credits);
    return user;
  };

  it("lists only the user's visible jobs, newest first, each with the key that submitted it", async () => {
    const u = newUser(500);
    const other = newUser(500);
    const first = await submitJob(h.ctx, image(u, 7, 'first'));
    const second = await submitJob(h.ctx, image(u, 8, 'second'));
    await cancelJob(h.ctx, { user_id: u, job_id: first.job_id });
    await submitJob(h.ctx, image(other, 9, 'not yours'));
    // A submit still under way is internal, never listed.
    await h.db('jobs').insert({
      id: 'job_hiddensubmit',
      user_id: u,
      api_key_id: 7,
      type: 'image',
      model_id: 'imagegen-2',
      upstream_model: 'x',
      params: '{}',
      cost: 50,
      status: 'submitting',
      provider: 'local',
      deadline_at: new Date(Date.now() + 60_000),
    });

    const { jobs } = await listJobs(h.ctx, { user_id: u });
    expect(jobs.map((j) => [j.job_id, j.status, j.api_key_id])).toEqual([
      [second.job_id, 'processing', 8],
      [first.job_id, 'cancelled', 7],
    ]);
    expect(jobs[0]).toEqual({
      job_id: second.job_id,
      status: 'processing',
      model: 'ImageGen 2',
      type: 'image',
      credits_consumed: 50,
      created_at: expect.any(String),
      completed_at: null,
      progress: null,
      result: null,
      error: null,
      input: { prompt: 'second', image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
      source: 'api',
      project_id: null,
      api_key_id: 8,
    });
  });

  it('pages by the last job id: no job is skipped or repeated, even when created in the same instant', async () => {
    const u = newUser(0);
    const at = new Date('2030-05-05T10:00:00.123456Z');
    const ids = ['job_A1', 'job_A2', 'job_A3', 'job_B1', 'job_B2'];
    await h.db('jobs').insert(
      ids.map((id, i) => ({
        id,
        user_id: u,
        api_key_id: 1,
        type: 'image',
        model_id: 'imagegen-2',
        upstream_model: 'x',
        params: '{}',
        cost: 0,
        status: 'completed',
        provider: 'local',
        deadline_at: at,
        created_at: i < 3 ? at : h.db.raw(`'2030-05-05T10:00:00.123457Z'::timestamptz`),
      })),
    );
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await listJobs(h.ctx, { user_id: u, limit: 2, ...(before ? { before } : {}) });
      if (!page.jobs.length) break;
      seen.push(...page.jobs.map((j) => j.job_id));
      // has_more is true exactly until the last page.
      expect(page.has_more).toBe(seen.length < ids.length);
      before = page.jobs[page.jobs.length - 1].job_id;
    }
    // Newest first by created_at (microseconds count), then by id.
    expect(seen).toEqual(['job_B2', 'job_B1', 'job_A3', 'job_A2', 'job_A1']);
  });

  it("ends the list at a cursor that is not one of the user's jobs", async () => {
    const u = newUser(100);
    const other = newUser(100);
    const theirs = await submitJob(h.ctx, image(other, 1, 'theirs'));
    await submitJob(h.ctx, image(u, 1, 'mine'));
    expect(await listJobs(h.ctx, { user_id: u, before: theirs.job_id })).toEqual({ jobs: [], has_more: false });
    expect(await listJobs(h.ctx, { user_id: u, before: 'job_doesnotexist' })).toEqual({ jobs: [], has_more: false });
  });

  it('answers over RPC as jobs.list, with a default page of 50', async () => {
    const u = newUser(0);
    await h.db('jobs').insert(
      Array.from({ length: 55 }, (_, i) => ({
        id: `job_rpc${i}`,
        user_id: u,
        api_key_id: 1,
        type: 'image',
        model_id: 'imagegen-2',
        upstream_model: 'x',
        params: '{}',
        cost: 0,
        status: 'failed',
        error: 'no',
        provider: 'local',
        deadline_at: new Date(),
      })),
    );
    await serveJobsRpc(h.bus, h.ctx, {
      pollNow: () => Promise.resolve(false),
      pollIfCurrent: () => Promise.resolve(false),
    });
    const reply = await h.bus.rpc(jobsRpc, 'list', { user_id: u });
    expect(reply.jobs).toHaveLength(50);
    expect(reply.jobs[0]).toMatchObject({ status: 'failed', error: 'no', api_key_id: 1 });
    expect((await h.bus.rpc(jobsRpc, 'list', { user_id: u, limit: 100 })).jobs).toHaveLength(55);
  });

  it('narrows the list by status, model and type, each page saying whether more match', async () => {
    const u = newUser(0);
    const at = (i: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, i));
    const row = (id: string, i: number, status: string, model: string, type: string) => ({
      id,
      user_id: u,
      api_key_id: i % 2 ? 1 : 2,
      type,
      model_id: model,
      upstream_model: 'x',
      params: '{}',
      cost: 0,
      status,
      provider: 'local',
      deadline_at: at(i),
      created_at: at(i),
    });
    await h
      .db('jobs')
      .insert([
        row('job_F1', 1, 'completed', 'vidgen-2.0', 'video'),
        row('job_F2', 2, 'failed', 'vidgen-2.0-fast', 'video'),
        row('job_F3', 3, 'completed', 'imagegen-2', 'image'),
        row('job_F4', 4, 'completed', 'vidgen-2.0', 'video'),
        row('job_F5', 5, 'processing', 'vidgen-2.0', 'video'),
      ]);
    const ids = async (req: Partial<ListJobsRequest>) =>
      (await listJobs(h.ctx, { user_id: u, ...req })).jobs.map((j) => j.job_id);
    expect(await ids({ status: 'completed' })).toEqual(['job_F4', 'job_F3', 'job_F1']);
    expect(await ids({ model: 'vidgen-2.0' })).toEqual(['job_F5', 'job_F4', 'job_F1']);
    expect(await ids({ type: 'image' })).toEqual(['job_F3']);
    expect(await ids({ type: 'video', status: 'completed' })).toEqual(['job_F4', 'job_F1']);
    expect(await ids({ api_key_id: 2 })).toEqual(['job_F4', 'job_F2']);
    expect(await ids({ model: 'no-such-model' })).toEqual([]);
    // A filtered page: the cursor and has_more follow the filter, not the unfiltered list.
    const first = await listJobs(h.ctx, { user_id: u, status: 'completed', limit: 2 });
    expect([first.jobs.map((j) => j.job_id), first.has_more]).toEqual([['job_F4', 'job_F3'], true]);
    const next = await listJobs(h.ctx, { user_id: u, status: 'completed', limit: 2, before: 'job_F3' });
    expect([next.jobs.map((j) => j.job_id), next.has_more]).toEqual([['job_F1'], false]);
  });
});
