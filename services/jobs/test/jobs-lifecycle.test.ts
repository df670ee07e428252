import { ROUTING_KEYS } from '@mf/contracts';
import { relayOutbox } from '../src/messaging/outbox-relay';
import { claimDueJobs, findJob, insertJobOnFirstAttempt } from '../src/repositories/jobs.repository';
import type { ProviderStatus } from '../src/providers/provider';
import { advanceDueJobs } from '../src/usecases/poll-round.usecase';
import { CallbackPolls } from '../src/usecases/callback-poll.usecase';
import { cancelJob } from '../src/usecases/cancel-job.usecase';
import { getJob, providerCallback } from '../src/usecases/read-jobs.usecase';
import { signCallbackToken } from '@mf/runtime';
import { toEventPayload } from '../src/domain/job';
import { submitJob } from '../src/usecases/submit-job.usecase';
import { retryPendingRefunds, sweepRetention, sweepStuckSubmits } from '../src/usecases/sweep.usecase';
import { producedFile, startHarness, type Harness } from './support/jobs-harness';

const image = (user: number, prompt = 'p') => ({
  user_id: user,
  api_key_id: 1,
  type: 'image' as const,
  params: { prompt, image_urls: [], num_images: 1 as const, aspect_ratio: '1:1' as const, seed: 1 },
});

describe('jobs lifecycle against the real database and broker', () => {
  let h: Harness;
  let user = 100;

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

  /** The token of attempt n's callback URL (good for an hour unless `expiresAt` says otherwise). */
  const callbackTokenFor = (jobId: string, attempt: number, expiresAt = new Date(Date.now() + 3_600_000)) =>
    signCallbackToken(h.ctx.settings.callbackSecret, { jobId, attempt, expiresAt });

  /** Keeps a test's processing jobs out of later tests' poller rounds. */
  const parkJobsOf = async (u: number): Promise<void> => {
    await h
      .db('jobs')
      .update({ next_poll_at: new Date(Date.now() + 3_600_000) })
      .where({ user_id: u, status: 'processing' });
  };

  const newUser = (credits: number): number => {
    user++;
    h.billing.balances.set(user, credits);
    return user;
  };

  it('never lets two pollers advance the same job in one round (FOR UPDATE SKIP LOCKED)', async () => {
    const u = newUser(50 * 40);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await submitJob(h.ctx, image(u))).job_id);
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).whereIn('id', ids);
    h.provider.statusCalls.clear();
    // Two replicas poll at the same moment, with small batches so they compete for rows.
    const handled = await Promise.all([
      advanceDueJobs(h.ctx, 7),
      advanceDueJobs(h.ctx, 7),
      advanceDueJobs(h.ctx, 7),
      advanceDueJobs(h.ctx, 7),
    ]);
    expect(handled.reduce((a, b) => a + b, 0)).toBe(28);
    expect([...h.provider.statusCalls.values()].every((n) => n === 1)).toBe(true);
    expect(h.provider.statusCalls.size).toBe(28);
  });

  it('ends a cancel racing a completion in exactly one terminal state, with a consistent balance', async () => {
    for (let round = 0; round < 10; round++) {
      const u = newUser(50);
      const { job_id } = await submitJob(h.ctx, image(u, `race ${round}`));
      await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: job_id });
      const file = producedFile(h.mediaDir, `out-${round}.png`);
      h.provider.next = () => ({
        state: 'completed',
        outputs: [{ kind: 'file', path: file, contentType: 'image/png' }],
      });
      const [cancel] = await Promise.allSettled([cancelJob(h.ctx, { user_id: u, job_id }), advanceDueJobs(h.ctx, 50)]);
      const final = await getJob(h.ctx, { user_id: u, job_id });
      if (final.status === 'cancelled') {
        expect(cancel.status).toBe('fulfilled');
        expect(h.billing.balance(u)).toBe(50);
        expect(final.result).toBeNull();
      } else {
        expect(final.status).toBe('completed');
        expect(cancel.status).toBe('rejected');
        expect((cancel as PromiseRejectedResult).reason).toMatchObject({ kind: 'conflict' });
        expect(h.billing.balance(u)).toBe(0);
      }
    }
  });

  it('writes exactly one event per terminal change and relays it with the job fields', async () => {
    const received: { key: string; payload: Record<string, unknown>; id: string }[] = [];
    const { conn, ch, queue } = await (async () => {
      const amqp = await import('amqplib');
      const c = await amqp.connect(h.env.amqpUrl);
      const channel = await c.createChannel();
      const q = (await channel.assertQueue('', { exclusive: true })).queue;
      await channel.bindQueue(q, 'events', ROUTING_KEYS.jobAll);
      await channel.consume(
        q,
        (m) =>
          m &&
          received.push({
            key: m.fields.routingKey,
            payload: JSON.parse(m.content.toString()).payload,
            id: String(m.properties.messageId),
          }),
        { noAck: true },
      );
      return { conn: c, ch: channel, queue: q };
    })();
    try {
      await h.db('outbox').update({ published_at: h.db.fn.now() }).whereNull('published_at');
      const u = newUser(150);
      const done = await submitJob(h.ctx, image(u, 'done'));
      const failed = await submitJob(h.ctx, image(u, 'failed'));
      const cancelled = await submitJob(h.ctx, image(u, 'cancelled'));
      const file = producedFile(h.mediaDir, 'event.png');
      h.provider.next = (req) =>
        req === `req-${done.job_id}`
          ? { state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] }
          : { state: 'failed', error: 'it broke' };
      await cancelJob(h.ctx, { user_id: u, job_id: cancelled.job_id });
      await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).whereIn('id', [done.job_id, failed.job_id]);
      await advanceDueJobs(h.ctx, 50);
      // Two relays racing publish every row once.
      await Promise.all([relayOutbox(h.db, h.bus), relayOutbox(h.db, h.bus)]);
      const until = Date.now() + 10_000;
      while (received.length < 6 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      // Each job: job.processing when the upstream took it, then its one terminal event.
      expect(received.map((e) => [e.key, e.payload.job_id]).sort()).toEqual(
        [
          ['job.processing', done.job_id],
          ['job.processing', failed.job_id],
          ['job.processing', cancelled.job_id],
          ['job.cancelled', cancelled.job_id],
          ['job.completed', done.job_id],
          ['job.failed', failed.job_id],
        ].sort(),
      );
      const completed = received.find((e) => e.key === 'job.completed')!.payload;
      expect(completed).toMatchObject({
        status: 'completed',
        user_id: u,
        api_key_id: 1,
        model_id: 'imagegen-2',
        upstream_model: 'fal-ai/imagegen-2',
        type: 'image',
        credits_consumed: 50,
        error: null,
        result: { images: [`https://media.test/media/jobs/${done.job_id}/image-1.png`] },
      });
      expect(received.find((e) => e.key === 'job.failed')!.payload).toMatchObject({
        status: 'failed',
        error: 'it broke',
        result: null,
      });
      expect(new Set(received.map((e) => e.id)).size).toBe(6);
      // The log's ids travel with each event and sort as the events were written.
      expect(completed.job).toMatchObject({ job_id: done.job_id, status: 'completed', progress: 100 });
      expect(completed.event_id).toMatch(/^evt_\d{16}$/);
      expect(await h.db('outbox').whereNull('published_at').count({ n: '*' }).first()).toEqual({ n: 0 });
      expect(h.billing.balance(u)).toBe(100); // 150 - 3 x 50, then failed and cancelled refunded; completed kept
      await ch.deleteQueue(queue).catch(() => undefined);
    } finally {
      await conn.close();
    }
  });

  it('refunds a submit stuck in "submitting" and closes its reference against a late charge', async () => {
    const u = newUser(100);
    const [row] = await h
      .db('jobs')
      .insert({
        id: 'job_stuck1',
        user_id: u,
        api_key_id: 1,
        type: 'image',
        model_id: 'imagegen-2',
        upstream_model: 'fal-ai/imagegen-2',
        params: JSON.stringify(image(u).params),
        cost: 50,
        status: 'submitting',
        provider: 'local',
        deadline_at: new Date(Date.now() + 60_000),
        created_at: new Date(Date.now() - 10_000),
      })
      .returning('*');
    // The submit crashed before its charge reached billing: the sweeper's refund closes the reference.
    expect(await sweepStuckSubmits(h.ctx, 5000)).toBe(1);
    expect(h.billing.balance(u)).toBe(100);
    expect(await h.db('jobs').first('status', 'refund_state').where({ id: row.id })).toEqual({
      status: 'rejected',
      refund_state: 'done',
    });
    await expect(getJob(h.ctx, { user_id: u, job_id: row.id })).rejects.toMatchObject({ kind: 'not_found' });
    // The charge arriving now (a retry still in flight from the crashed submit) is refused.
    await expect(
      h.billing.handlers.charge({ user_id: u, reference: `job:${row.id}`, amount: 50 }),
    ).rejects.toMatchObject({
      kind: 'conflict',
      body: { error: `reference job:${row.id} is closed (already refunded)` },
    });
    expect(h.billing.balance(u)).toBe(100);
  });

  it('retries a refund billing has not confirmed: settles it once, and the next round owes nothing more', async () => {
    const u = newUser(100);
    const [row] = await h
      .db('jobs')
      .insert({
        id: 'job_owed1',
        user_id: u,
        api_key_id: 1,
        type: 'image',
        model_id: 'imagegen-2',
        upstream_model: 'fal-ai/imagegen-2',
        params: JSON.stringify(image(u).params),
        cost: 50,
        status: 'failed',
        error: 'upstream failed',
        provider: 'local',
        refund_state: 'pending',
        deadline_at: new Date(Date.now() + 60_000),
        completed_at: new Date(),
      })
      .returning('*');
    // Charged, then the job failed while billing did not answer the refund.
    await h.billing.handlers.charge({ user_id: u, reference: `job:${row.id}`, amount: 50 });
    const owed = await h.db('jobs').where({ refund_state: 'pending' }).pluck('id');
    expect(owed).toContain(row.id);

    expect(await retryPendingRefunds(h.ctx)).toBe(owed.length);
    expect(h.billing.balance(u)).toBe(100);
    expect(h.billing.refunds.get(`job:${row.id}`)).toBe(50);
    expect(await h.db('jobs').first('refund_state').where({ id: row.id })).toEqual({ refund_state: 'done' });

    expect(await retryPendingRefunds(h.ctx)).toBe(0);
    expect(h.billing.balance(u)).toBe(100);
  });

  it('deletes jobs past retention with their media; they answer 404', async () => {
    const u = newUser(50);
    const { job_id } = await submitJob(h.ctx, image(u, 'old'));
    const file = producedFile(h.mediaDir, 'old.png');
    h.provider.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: job_id });
    await advanceDueJobs(h.ctx, 50);
    expect((await getJob(h.ctx, { user_id: u, job_id })).status).toBe('completed');
    expect(await h.ctx.storage.stat(`jobs/${job_id}/image-1.png`)).not.toBeNull();
    await h
      .db('jobs')
      .update({ created_at: h.db.raw(`now() - interval '31 days'`) })
      .where({ id: job_id });
    expect(await sweepRetention(h.ctx, 30)).toBeGreaterThanOrEqual(1);
    await expect(getJob(h.ctx, { user_id: u, job_id })).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Job not found' },
    });
    expect(await h.ctx.storage.stat(`jobs/${job_id}/image-1.png`)).toBeNull();
  });

  it('answers a resubmit under the same idempotency key with the first job, charging once', async () => {
    const u = newUser(500);
    const idempotency = { key: 'a'.repeat(64), window_hours: 24 };
    const first = await submitJob(h.ctx, { ...image(u, 'once'), idempotency });
    const again = await submitJob(h.ctx, { ...image(u, 'once'), idempotency });
    expect(again).toEqual(first);
    expect(h.billing.balance(u)).toBe(450);
    expect(await h.db('jobs').where({ user_id: u }).count({ n: '*' }).first()).toEqual({ n: 1 });
    // Another key, or the same key past its window, is a new job.
    const other = await submitJob(h.ctx, {
      ...image(u, 'once'),
      idempotency: { key: 'b'.repeat(64), window_hours: 24 },
    });
    expect(other.job_id).not.toBe(first.job_id);
    await h
      .db('jobs')
      .update({ created_at: h.db.raw(`now() - interval '25 hours'`) })
      .where({ id: first.job_id });
    const later = await submitJob(h.ctx, { ...image(u, 'once'), idempotency });
    expect(later.job_id).not.toBe(first.job_id);
    expect(h.billing.balance(u)).toBe(350);
    await parkJobsOf(u);
  });

  it('makes one job of two submits of one idempotency key arriving together, charging once', async () => {
    const u = newUser(500);
    const idempotency = { key: 'd'.repeat(64), window_hours: 24 };
    const answers = await Promise.allSettled([
      submitJob(h.ctx, { ...image(u, 'together'), idempotency }),
      submitJob(h.ctx, { ...image(u, 'together'), idempotency }),
    ]);
    // The second waits for the first's row: the same job, or a retryable 503 while it is submitting.
    const jobIds = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value.job_id] : []));
    for (const a of answers) if (a.status === 'rejected') expect(a.reason).toMatchObject({ kind: 'unavailable' });
    expect(new Set(jobIds).size).toBe(1);
    expect(await h.db('jobs').where({ user_id: u }).count({ n: '*' }).first()).toEqual({ n: 1 });
    expect(h.billing.balance(u)).toBe(450);
    await parkJobsOf(u);
  });

  it('answers a resubmit a retryable 503 while the first is still submitting, and submits afresh after a rejected one', async () => {
    const u = newUser(500);
    const idempotency = { key: 'c'.repeat(64), window_hours: 24 };
    await h.db('jobs').insert({
      id: 'job_inflight1',
      user_id: u,
      api_key_id: 1,
      type: 'image',
      model_id: 'imagegen-2',
      upstream_model: 'fal-ai/imagegen-2',
      params: JSON.stringify(image(u).params),
      cost: 50,
      status: 'submitting',
      provider: 'local',
      deadline_at: new Date(Date.now() + 60_000),
      idempotency_key: idempotency.key,
    });
    await expect(submitJob(h.ctx, { ...image(u), idempotency })).rejects.toMatchObject({ kind: 'unavailable' });
    await h.db('jobs').update({ status: 'rejected' }).where({ id: 'job_inflight1' });
    const fresh = await submitJob(h.ctx, { ...image(u), idempotency });
    expect(fresh.job_id).not.toBe('job_inflight1');
    expect(h.billing.balance(u)).toBe(450);
    await parkJobsOf(u);
  });

  it('leases a claimed job no longer than its deadline, so a poller dying mid-round cannot delay its timeout', async () => {
    const u = newUser(0);
    await h.db('jobs').insert({
      id: 'job_leased1',
      user_id: u,
      api_key_id: 1,
      type: 'image',
      model_id: 'imagegen-2',
      upstream_model: 'fal-ai/imagegen-2',
      params: JSON.stringify(image(u).params),
      cost: 50,
      status: 'processing',
      provider: 'local',
      provider_request_id: 'r1',
      deadline_at: new Date(Date.now() + 2000),
      next_poll_at: new Date(Date.now() - 1000),
    });
    await h.db('jobs').insert({
      id: 'job_leased2',
      user_id: u,
      api_key_id: 1,
      type: 'image',
      model_id: 'imagegen-2',
      upstream_model: 'fal-ai/imagegen-2',
      params: JSON.stringify(image(u).params),
      cost: 50,
      status: 'processing',
      provider: 'local',
      provider_request_id: 'r2',
      deadline_at: new Date(Date.now() + 3_600_000),
      next_poll_at: new Date(Date.now() - 1000),
    });
    // The poller claims both, then "dies" before advancing them.
    const claimed = await claimDueJobs(h.db, 50, 60_000);
    expect(claimed.map((j) => j.id)).toEqual(expect.arrayContaining(['job_leased1', 'job_leased2']));
    const leases = Object.fromEntries(
      (
        await h
          .db('jobs')
          .select('id', h.db.raw('extract(epoch from next_poll_at - now()) AS s'))
          .whereIn('id', ['job_leased1', 'job_leased2'])
      ).map((r: { id: string; s: string }) => [r.id, Number(r.s)]),
    );
    expect(leases.job_leased1).toBeLessThanOrEqual(6); // its deadline (2 s) or 5 s, not the 60 s lease
    expect(leases.job_leased2).toBeGreaterThan(50); // far from its deadline: the full lease
    await h.db('jobs').update({ status: 'failed' }).whereIn('id', ['job_leased1', 'job_leased2']);
  });

  it('leaves no job, no attempt and no charge when the balance is short (402)', async () => {
    const u = newUser(10);
    const attemptsBefore = await h.db('job_attempts').count({ n: '*' }).first();
    await expect(submitJob(h.ctx, image(u))).rejects.toMatchObject({
      kind: 'payment_required',
      body: { credits_required: 50, credits_remaining: 10 },
    });
    expect(await h.db('jobs').where({ user_id: u }).count({ n: '*' }).first()).toEqual({ n: 0 });
    expect(await h.db('job_attempts').count({ n: '*' }).first()).toEqual(attemptsBefore);
    expect(h.billing.balance(u)).toBe(10);
  });

  it('makes a submitted job processing on its first attempt, with one job.processing event of the row as it stands', async () => {
    const u = newUser(50);
    const { job_id } = await submitJob(h.ctx, image(u, 'first attempt'));
    await parkJobsOf(u);
    const row = await findJob(h.db, job_id);
    expect(row).toMatchObject({ status: 'processing', attempt: 1, provider_request_id: `req-${job_id}` });
    expect(await h.db('job_attempts').select('n', 'state', 'upstream_id').where({ job_id })).toEqual([
      { n: 1, state: 'running', upstream_id: `req-${job_id}` },
    ]);
    const events = await h.db('outbox').select('routing_key', 'payload').where({ job_id });
    expect(events).toEqual([
      {
        routing_key: ROUTING_KEYS.jobProcessing,
        payload: JSON.parse(JSON.stringify(toEventPayload(row!, h.ctx.settings.publicBaseUrl))),
      },
    ]);
  });

  it('rejects a submit interrupted between its row and its charge, ending its first attempt as abandoned', async () => {
    const u = newUser(50);
    const job = await insertJobOnFirstAttempt(
      h.db,
      {
        id: 'job_interrupted1',
        user_id: u,
        api_key_id: 1,
        type: 'image',
        model_id: 'imagegen-2',
        upstream_model: 'fal-ai/imagegen-2',
        params: image(u).params,
        cost: 50,
        status: 'submitting',
        idempotency_key: null,
        source: 'api',
        project_id: null,
        provider: 'local',
        routes: [{ provider: 'local', model: 'fal-ai/imagegen-2' }],
        deadline_at: new Date(Date.now() + 60_000),
      },
      { provider_type: 'local', upstream_model: 'fal-ai/imagegen-2' },
    );
    expect(job).toMatchObject({ status: 'submitting', attempt: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await sweepStuckSubmits(h.ctx, 10)).toBe(1);
    expect(await findJob(h.db, job.id)).toMatchObject({ status: 'rejected', refund_state: 'done' });
    expect(await h.db('job_attempts').select('n', 'state').where({ job_id: job.id })).toEqual([
      { n: 1, state: 'abandoned' },
    ]);
    expect(h.billing.balance(u)).toBe(50);
  });

  it('polls a job at once on a provider callback with the right token, completing it without a poll round, and ignores a forged one', async () => {
    const u = newUser(50);
    const { job_id } = await submitJob(h.ctx, image(u, 'callback'));
    await parkJobsOf(u);
    let woken = 0;
    const polls = new CallbackPolls(h.ctx, () => woken++);
    const poll = (id: string) => polls.pollNow(id);
    h.provider.statusCalls.clear();
    expect(await providerCallback(h.ctx, { job_id, token: 'forged-token' }, poll)).toEqual({ accepted: false });
    await polls.drain();
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBeUndefined();

    const file = producedFile(h.mediaDir, 'callback.png');
    h.provider.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });
    // A real token, but expired, or made for another attempt: refused like a forged one.
    const expired = callbackTokenFor(job_id, 1, new Date(Date.now() - 1000));
    expect(await providerCallback(h.ctx, { job_id, token: expired, attempt: 1 }, poll)).toEqual({ accepted: false });
    const otherAttempt = callbackTokenFor(job_id, 2);
    expect(await providerCallback(h.ctx, { job_id, token: otherAttempt, attempt: 1 }, poll)).toEqual({
      accepted: false,
    });
    await polls.drain();
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBeUndefined();

    const token = callbackTokenFor(job_id, 1);
    expect(await providerCallback(h.ctx, { job_id, token, attempt: 1 }, poll)).toEqual({ accepted: true });
    await polls.drain();
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBe(1);
    expect(woken).toBe(0);
    expect(await getJob(h.ctx, { user_id: u, job_id })).toMatchObject({ status: 'completed' });
    // Completed: a repeated callback has nothing to poll.
    expect(await providerCallback(h.ctx, { job_id, token, attempt: 1 }, poll)).toEqual({ accepted: false });
  });

  it('claims a job in one statement on a callback for its current attempt of a provider that signs nothing, and looks closer at any other', async () => {
    const u = newUser(50);
    const { job_id } = await submitJob(h.ctx, image(u, 'fast callback'));
    await parkJobsOf(u);
    const polls = new CallbackPolls(h.ctx, () => undefined);
    const closer: string[] = [];
    const poll = (id: string) => {
      closer.push(id);
      return polls.pollNow(id);
    };
    const fast = (id: string, n: number, providers: string[]) => polls.pollIfCurrent(id, n, providers);
    const token = callbackTokenFor(job_id, 1);
    h.provider.statusCalls.clear();

    // Not its attempt, or not its provider: nothing claimed, nothing polled.
    expect(await polls.pollIfCurrent(job_id, 2, ['local'])).toBe(false);
    expect(await polls.pollIfCurrent(job_id, 1, ['a-provider-that-signs'])).toBe(false);
    const secondAttempt = callbackTokenFor(job_id, 2);
    expect(await providerCallback(h.ctx, { job_id, token: secondAttempt, attempt: 2 }, poll, fast)).toEqual({
      accepted: false,
    });
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBeUndefined();
    expect((await findJob(h.db, job_id))!.next_poll_at!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);

    const file = producedFile(h.mediaDir, 'fast-callback.png');
    h.provider.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });
    expect(await providerCallback(h.ctx, { job_id, token, attempt: 1 }, poll, fast)).toEqual({ accepted: true });
    await polls.drain();
    expect(closer).toEqual([]);
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBe(1);
    expect(await getJob(h.ctx, { user_id: u, job_id })).toMatchObject({ status: 'completed' });
    // Completed: neither way finds anything to poll.
    expect(await providerCallback(h.ctx, { job_id, token, attempt: 1 }, poll, fast)).toEqual({ accepted: false });
  });

  it('only makes a job due again when a callback names a job a poll round of this process is advancing', async () => {
    const u = newUser(50);
    const { job_id } = await submitJob(h.ctx, image(u, 'callback in a round'));
    await parkJobsOf(u);
    await h.db('jobs').update({ next_poll_at: h.db.fn.now() }).where({ id: job_id });
    let woken = 0;
    const polls = new CallbackPolls(h.ctx, () => woken++);
    let release: (s: ProviderStatus) => void = () => undefined;
    let entered: () => void = () => undefined;
    const inStatus = new Promise<void>((r) => (entered = r));
    h.provider.statusCalls.clear();
    h.provider.next = () => {
      // A second status call (the job advanced twice) would be answered at once, and counted.
      h.provider.next = () => ({ state: 'running' });
      return new Promise<ProviderStatus>((resolve) => {
        release = resolve;
        entered();
      });
    };
    const round = advanceDueJobs(h.ctx, 50, polls.advancer);
    await inStatus;
    const token = callbackTokenFor(job_id, 1);
    expect(await providerCallback(h.ctx, { job_id, token, attempt: 1 }, (id) => polls.pollNow(id))).toEqual({
      accepted: true,
    });
    release({ state: 'running' });
    expect(await round).toBe(1);
    // The round and the callback share the advancer: its drain waits for both.
    await polls.drain();
    // Not advanced a second time alongside the round: the poller is woken to look again after it.
    expect(h.provider.statusCalls.get(`req-${job_id}`)).toBe(1);
    expect(woken).toBe(1);
    expect(polls.inFlight.size).toBe(0);
    await parkJobsOf(u);
  });
});
