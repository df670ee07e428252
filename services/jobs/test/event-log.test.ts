import { ROUTING_KEYS, webhookBody, type JobEventPayload } from '@mf/contracts';
import { addToOutbox } from '../src/repositories/outbox.repository';
import { advanceDueJobs } from '../src/usecases/poll-round.usecase';
import { cancelJob } from '../src/usecases/cancel-job.usecase';
import { listEvents, recordTestEvent } from '../src/usecases/event-log.usecase';
import { getJob } from '../src/usecases/read-jobs.usecase';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { producedFile, startHarness, type Harness } from './support/jobs-harness';

const image = (user: number, prompt = 'p') => ({
  user_id: user,
  api_key_id: 1,
  type: 'image' as const,
  params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
});

describe('progress and the per-user event log against the real database', () => {
  let h: Harness;
  let user = 900;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    h.provider.next = () => ({ state: 'running' });
    h.provider.submitError = null;
  });

  const newUser = (credits: number): number => {
    user++;
    h.billing.balances.set(user, credits);
    return user;
  };
  const pollNow = (jobId: string) => h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: jobId });
  /** Lets the last progress event be older than the one-a-second limit. */
  const ageProgressEvent = (jobId: string) =>
    h
      .db('jobs')
      .update({ progress_event_at: h.db.raw(`now() - interval '2 seconds'`) })
      .where({ id: jobId });

  it('shows progress as a percent while processing, as null when the provider cannot tell, and 100 once completed', async () => {
    const u = newUser(500);
    const { job_id } = await submitJob(h.ctx, image(u));
    expect((await getJob(h.ctx, { user_id: u, job_id })).progress).toBeNull();

    h.provider.next = () => ({ state: 'running', progress: 0.427 });
    await pollNow(job_id);
    await advanceDueJobs(h.ctx, 50);
    expect((await getJob(h.ctx, { user_id: u, job_id })).progress).toBe(42);

    const file = producedFile(h.mediaDir, 'progress.png');
    h.provider.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });
    await pollNow(job_id);
    await advanceDueJobs(h.ctx, 50);
    expect(await getJob(h.ctx, { user_id: u, job_id })).toMatchObject({ status: 'completed', progress: 100 });
  });

  it('shows the upstream queue position before the start, and drops it once the job ended', async () => {
    const u = newUser(500);
    const { job_id } = await submitJob(h.ctx, image(u));
    h.provider.next = () => ({ state: 'running', queuePosition: 3 });
    await pollNow(job_id);
    await advanceDueJobs(h.ctx, 50);
    expect(await getJob(h.ctx, { user_id: u, job_id })).toMatchObject({ progress: null, queue_position: 3 });
    await cancelJob(h.ctx, { user_id: u, job_id });
    expect(await getJob(h.ctx, { user_id: u, job_id })).not.toHaveProperty('queue_position');
  });

  it('writes a job.progress event when the percent changes, at most one a second per job', async () => {
    const u = newUser(500);
    const { job_id } = await submitJob(h.ctx, image(u));
    for (const p of [0.1, 0.2, 0.3]) {
      h.provider.next = () => ({ state: 'running', progress: p });
      await pollNow(job_id);
      await advanceDueJobs(h.ctx, 50);
    }
    // Three changes within a second: the first is an event, the others only update the job.
    let page = await listEvents(h.ctx, { user_id: u, job_id });
    expect(page.events.map((e) => [e.type, e.data.progress])).toEqual([
      ['job.processing', null],
      ['job.progress', 10],
    ]);
    expect((await getJob(h.ctx, { user_id: u, job_id })).progress).toBe(30);

    await ageProgressEvent(job_id);
    h.provider.next = () => ({ state: 'running', progress: 0.5 });
    await pollNow(job_id);
    await advanceDueJobs(h.ctx, 50);
    // The same percent again is no change, hence no event, whatever the time.
    await ageProgressEvent(job_id);
    await pollNow(job_id);
    await advanceDueJobs(h.ctx, 50);
    page = await listEvents(h.ctx, { user_id: u, job_id });
    expect(page.events.map((e) => [e.type, e.data.progress])).toEqual([
      ['job.processing', null],
      ['job.progress', 10],
      ['job.progress', 50],
    ]);
  });

  it('lists only the user’s own events, oldest first, in pages whose cursor resumes without gap or duplicate', async () => {
    const u = newUser(1000);
    const other = newUser(1000);
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push((await submitJob(h.ctx, image(u, `mine ${i}`))).job_id);
      await submitJob(h.ctx, image(other, `theirs ${i}`));
    }
    for (const job_id of mine.slice(0, 2)) await cancelJob(h.ctx, { user_id: u, job_id });

    const all = await listEvents(h.ctx, { user_id: u, limit: 100 });
    expect(all.next_cursor).toBeNull();
    expect(all.events.map((e) => [e.type, e.job_id])).toEqual([
      ...mine.map((id) => ['job.processing', id]),
      ['job.cancelled', mine[0]],
      ['job.cancelled', mine[1]],
    ]);
    const ids = all.events.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);
    expect(all.events[5].data).toMatchObject({ job_id: mine[0], status: 'cancelled', progress: null });

    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await listEvents(h.ctx, { user_id: u, limit: 3, ...(after ? { after } : {}) });
      walked.push(...page.events.map((e) => e.id));
      if (!page.next_cursor) break;
      after = page.next_cursor;
    }
    expect(walked).toEqual(ids);
    expect((await listEvents(h.ctx, { user_id: u, after: ids[ids.length - 1] })).events).toEqual([]);
  });

  it('carries on a terminal event the body a webhook delivery of it carries, built from the published payload', async () => {
    const u = newUser(500);
    const { job_id } = await submitJob(h.ctx, image(u));
    await cancelJob(h.ctx, { user_id: u, job_id });
    const { events } = await listEvents(h.ctx, { user_id: u, limit: 100 });
    expect(events.map((e) => [e.type, e.webhook_body === undefined])).toEqual([
      ['job.processing', true],
      ['job.cancelled', false],
    ]);
    const row = await h.db('outbox').where({ job_id, routing_key: ROUTING_KEYS.jobCancelled }).first();
    expect(events[1].webhook_body).toBe(webhookBody(row.payload as JobEventPayload));
    expect(JSON.parse(events[1].webhook_body ?? '{}')).toMatchObject({ job_id, status: 'cancelled' });
  });

  it('records a test event (trigger) in the user’s log, marked test, with its delivery body; refuses a sample that is not one', async () => {
    const u = newUser(500);
    const { job_id } = await submitJob(h.ctx, image(u));
    const { events: before } = await listEvents(h.ctx, { user_id: u, limit: 100 });
    const completed = await getJob(h.ctx, { user_id: u, job_id });
    const sample: JobEventPayload = {
      job_id: 'job_testABC123',
      user_id: u,
      api_key_id: 1,
      status: 'completed',
      model_id: 'imagegen-2',
      upstream_model: 'fal-ai/imagegen-2',
      type: 'image',
      credits_consumed: 50,
      created_at: '2026-01-01T00:00:00.000Z',
      completed_at: '2026-01-01T00:00:05.000Z',
      result: { images: ['https://media.test/job_testABC123/0.png'] },
      error: null,
      source: 'api',
      project_id: null,
    };
    const job = { ...completed, job_id: sample.job_id, status: 'completed' as const, progress: 100 };
    const event = await recordTestEvent(h.ctx, { type: 'job.completed', sample: { ...sample, job } });
    expect(event).toMatchObject({ type: 'job.completed', job_id: 'job_testABC123', test: true });
    expect(event.webhook_body).toBe(webhookBody(sample));
    const { events } = await listEvents(h.ctx, { user_id: u, after: before.at(-1)!.id, limit: 100 });
    expect(events).toEqual([event]);
    expect(before.every((e) => e.test === undefined)).toBe(true);

    await expect(recordTestEvent(h.ctx, { type: 'job.failed', sample: { ...sample, job } })).rejects.toMatchObject({
      kind: 'invalid',
    });
    await expect(
      recordTestEvent(h.ctx, { type: 'job.completed', sample: { ...sample, job_id } }),
    ).rejects.toMatchObject({ kind: 'invalid' });
  });

  it("draws a user's event id only once the user's earlier event committed, so ids become visible in order", async () => {
    const u = newUser(0);
    const payload = (job: string) => ({ user_id: u, job_id: job }) as unknown as JobEventPayload;
    const first = await h.db.transaction();
    await addToOutbox(first, ROUTING_KEYS.jobCompleted, payload('job_first'));
    let secondWritten = false;
    const second = h.db.transaction(async (trx) => {
      await addToOutbox(trx, ROUTING_KEYS.jobCompleted, payload('job_second'));
      secondWritten = true;
    });
    // The second waits on the user's lock while the first is open (one round trip of the first later).
    await first.raw('SELECT pg_sleep(0.2)');
    expect(secondWritten).toBe(false);
    await first.commit();
    await second;
    const rows = await h.db('outbox').select('id', 'job_id').where({ user_id: u }).orderBy('id');
    expect(rows.map((r: { job_id: string }) => r.job_id)).toEqual(['job_first', 'job_second']);
  });
});
