import { jobsRpc, type SubmitJobRequest } from '@mf/contracts';
import { serveJobsRpc } from '../src/messaging/jobs-rpc.server';
import { advanceDueJobs } from '../src/usecases/poll-round.usecase';
import { cancelJob } from '../src/usecases/cancel-job.usecase';
import { getJob } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { startHarness, type Harness } from './support/jobs-harness';

const video = (user: number, extra: Partial<SubmitJobRequest> = {}): SubmitJobRequest =>
  ({
    user_id: user,
    api_key_id: 3,
    type: 'video',
    params: {
      prompt: 'a red kite over dunes',
      image_url: null,
      fast: false,
      duration_seconds: 4,
      aspect_ratio: '9:16',
      resolution: '480p',
      generate_audio: false,
      seed: 77,
    },
    ...extra,
  }) as SubmitJobRequest;

/**
 * A job keeps its accepted input and who made it (a key, the editor for a project, the dashboard
 * playground), and the refund's ledger line says why it was refunded.
 */
describe('job input, origin and refund wording', () => {
  let h: Harness;
  let user = 900;

  beforeAll(async () => {
    h = await startHarness();
    await serveJobsRpc(h.bus, h.ctx, {
      pollNow: () => Promise.resolve(false),
      pollIfCurrent: () => Promise.resolve(false),
    });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    h.provider.next = () => ({ state: 'running' });
  });

  const newUser = (credits: number): number => {
    user++;
    h.billing.balances.set(user, credits);
    return user;
  };

  it('returns the input as used (defaults applied, the seed) with source api and no project', async () => {
    const u = newUser(1000);
    const { job_id } = await submitJob(h.ctx, video(u));
    expect(await getJob(h.ctx, { user_id: u, job_id })).toMatchObject({
      input: {
        prompt: 'a red kite over dunes',
        image_url: null,
        fast: false,
        duration_seconds: 4,
        aspect_ratio: '9:16',
        resolution: '480p',
        generate_audio: false,
        seed: 77,
      },
      source: 'api',
      project_id: null,
    });
    expect(h.billing.descriptions.get(`job:${job_id}`)).toBe('vidgen-2.0 job');
  });

  it("marks the editor's jobs with their project, in the job, the list filter and the ledger line", async () => {
    const u = newUser(1000);
    const { job_id } = await h.bus.rpc(jobsRpc, 'submit', video(u, { source: 'editor', project_id: 'prj_harbour' }));
    expect(await h.bus.rpc(jobsRpc, 'get', { user_id: u, job_id })).toMatchObject({
      source: 'editor',
      project_id: 'prj_harbour',
    });
    expect(h.billing.descriptions.get(`job:${job_id}`)).toBe('vidgen-2.0 job (editor)');
  });

  it('takes a job of the dashboard session without a key (playground, studio turn), and refuses a keyless API job', async () => {
    const u = newUser(1000);
    const { job_id } = await h.bus.rpc(jobsRpc, 'submit', video(u, { source: 'dashboard', api_key_id: null }));
    const studio = await h.bus.rpc(
      jobsRpc,
      'submit',
      video(u, { source: 'editor', project_id: 'prj_studio', api_key_id: null }),
    );
    const listed = await h.bus.rpc(jobsRpc, 'list', { user_id: u });
    expect(listed.jobs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ job_id, source: 'dashboard', api_key_id: null }),
        expect.objectContaining({
          job_id: studio.job_id,
          source: 'editor',
          project_id: 'prj_studio',
          api_key_id: null,
        }),
      ]),
    );
    // The RPC schema refuses them (a caller's bug), and so does the use case behind it.
    await expect(h.bus.rpc(jobsRpc, 'submit', video(u, { api_key_id: null }))).rejects.toMatchObject({
      kind: 'internal',
    });
    await expect(h.bus.rpc(jobsRpc, 'submit', video(u, { source: 'editor' }))).rejects.toMatchObject({
      kind: 'internal',
    });
    await expect(submitJob(h.ctx, video(u, { api_key_id: null }))).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'api_key_id is required' },
    });
    await expect(submitJob(h.ctx, video(u, { source: 'editor' }))).rejects.toMatchObject({
      kind: 'invalid',
      body: { error: 'project_id is required for an editor job' },
    });
    expect(h.billing.balance(u)).toBe(1000 - 2 * 4 * 101);
  });

  it('says "cancelled by you" on the refund of a job its owner cancelled, and who else ended a job otherwise', async () => {
    const u = newUser(5000);
    const byUser = await submitJob(h.ctx, video(u));
    await cancelJob(h.ctx, { user_id: u, job_id: byUser.job_id });
    expect(h.billing.reasons.get(`job:${byUser.job_id}`)).toBe('cancelled by you');

    const byEditor = await submitJob(h.ctx, video(u, { source: 'editor', project_id: 'prj_x' }));
    await h.bus.rpc(jobsRpc, 'cancel', { user_id: u, job_id: byEditor.job_id, cancelled_by: 'editor' });
    expect(h.billing.reasons.get(`job:${byEditor.job_id}`)).toBe(
      'cancelled by the editor (the generation took too long)',
    );

    const failing = await submitJob(h.ctx, video(u));
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: failing.job_id });
    h.provider.next = () => ({ state: 'failed', error: 'The provider returned no media' });
    await advanceDueJobs(h.ctx, 50);
    expect(h.billing.reasons.get(`job:${failing.job_id}`)).toBe('job failed');
    expect(h.billing.balance(u)).toBe(5000);
  });
});
