import { jobsRpc } from '@mf/contracts';
import { serveJobsRpc } from '../src/messaging/jobs-rpc.server';
import { getJob, getJobs } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { startHarness, type Harness } from './support/jobs-harness';

const image = (user: number, prompt: string) => ({
  user_id: user,
  api_key_id: 7,
  type: 'image' as const,
  params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
});

/** jobs.get-many: several jobs.get answered from one query, against the real database and broker. */
describe('reading several jobs at once', () => {
  let h: Harness;
  const owner = 900;
  const other = 901;

  beforeAll(async () => {
    h = await startHarness();
    h.billing.balances.set(owner, 500);
    h.billing.balances.set(other, 500);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers each ref as jobs.get would, in order: the Job, or null where jobs.get is a 404', async () => {
    const mine = await submitJob(h.ctx, image(owner, 'mine'));
    const theirs = await submitJob(h.ctx, image(other, 'theirs'));
    // A submit still under way is internal: jobs.get does not show it.
    await h.db('jobs').insert({
      id: 'job_readmanysubmitting',
      user_id: owner,
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

    const { jobs } = await getJobs(h.ctx, {
      refs: [
        { user_id: owner, job_id: mine.job_id },
        { user_id: owner, job_id: theirs.job_id },
        { user_id: owner, job_id: 'job_readmanysubmitting' },
        { user_id: owner, job_id: 'job_readmanymissing' },
        { user_id: other, job_id: theirs.job_id },
        { user_id: owner, job_id: mine.job_id },
      ],
    });

    const mineView = await getJob(h.ctx, { user_id: owner, job_id: mine.job_id });
    const theirsView = await getJob(h.ctx, { user_id: other, job_id: theirs.job_id });
    expect(jobs).toEqual([mineView, null, null, null, theirsView, mineView]);
    // The same bytes as jobs.get's answer, field order included.
    expect(JSON.stringify(jobs[0])).toBe(JSON.stringify(mineView));
  });

  it('answers over RPC as jobs.get-many', async () => {
    const job = await submitJob(h.ctx, image(owner, 'over rpc'));
    await serveJobsRpc(h.bus, h.ctx, {
      pollNow: () => Promise.resolve(false),
      pollIfCurrent: () => Promise.resolve(false),
    });
    const reply = await h.bus.rpc(jobsRpc, 'getMany', {
      refs: [
        { user_id: owner, job_id: job.job_id },
        { user_id: other, job_id: job.job_id },
      ],
    });
    expect(reply.jobs.map((j) => j?.job_id ?? null)).toEqual([job.job_id, null]);
  });
});
