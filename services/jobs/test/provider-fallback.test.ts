import { types } from 'node:util';
import { jobEvents, ROUTING_KEYS, type SubmitJobRequest } from '@mf/contracts';
import { createDb } from '@mf/db';
import { recordingLogger } from '@mf/testing';
import { signCallbackToken } from '@mf/runtime';
import { type JobRow } from '../src/domain/job';
import { ProviderSubmitError, type CallbackDelivery, type CallbackVerdict } from '../src/providers/provider';
import { findJob } from '../src/repositories/jobs.repository';
import { listAttempts } from '../src/repositories/attempts.repository';
import type { BreakerSettings } from '../src/routing/providers-document';
import { advanceJob } from '../src/usecases/advance-job.usecase';
import { cancelJob } from '../src/usecases/cancel-job.usecase';
import type { JobsContext } from '../src/usecases/context';
import { getJob, providerCallback } from '../src/usecases/read-jobs.usecase';
import { PROVIDER_SUBMIT_FAILED, submitJob } from '../src/usecases/submit-job.usecase';
import { producedFile, routingOf, ScriptedProvider, startHarness, type Harness } from './support/jobs-harness';

/** A scripted upstream that signs its callbacks (as Replicate or OpenRouter do): the body says how it ended. */
class SigningProvider extends ScriptedProvider {
  readonly wantsCallback = true;
  verifyCallback(delivery: CallbackDelivery | undefined): CallbackVerdict {
    if (delivery?.headers['x-test-signature'] !== 'valid') return { authentic: false };
    const body = JSON.parse(delivery.body) as { id: string; status: string };
    return { authentic: true, requestId: body.id, succeeded: body.status === 'succeeded' };
  }
}

const IMAGE_COST = 50;
const image = (user: number, prompt: string): SubmitJobRequest => ({
  user_id: user,
  api_key_id: 1,
  type: 'image',
  params: { prompt, image_urls: [], num_images: 1, aspect_ratio: '1:1', seed: 1 },
});

describe('routes with fallback against the real database and broker (scripted providers)', () => {
  let h: Harness;
  let user = 500;
  /** Charge calls billing received, per reference (a retried charge would show here even when billing dedups it). */
  const charges = new Map<string, number>();

  beforeAll(async () => {
    h = await startHarness();
    const charge = h.billing.handlers.charge;
    h.billing.handlers.charge = async (req) => {
      charges.set(req.reference, (charges.get(req.reference) ?? 0) + 1);
      return charge(req);
    };
  });
  afterAll(async () => {
    await h?.close();
  });

  const newUser = (credits = 1000): number => {
    user++;
    h.billing.balances.set(user, credits);
    return user;
  };
  /** A jobs context routed through `providers` in order, logging into `lines`. */
  const contextWith = (
    providers: ScriptedProvider[],
    opts: {
      breaker?: BreakerSettings;
      attemptTimeoutMs?: number;
      now?: () => number;
      submitStaleAfterMs?: number;
    } = {},
  ) => {
    const { logger, lines } = recordingLogger();
    const ctx: JobsContext = {
      ...h.ctx,
      logger,
      routing: routingOf(providers, opts.breaker, opts.attemptTimeoutMs, opts.now),
      settings: { ...h.ctx.settings, submitStaleAfterMs: opts.submitStaleAfterMs ?? h.ctx.settings.submitStaleAfterMs },
    };
    return { ctx, lines };
  };
  /** One poller round for this job only: claimed (leased) like claimDueJobs does, then advanced. */
  const poll = async (ctx: JobsContext, jobId: string): Promise<void> => {
    const [row] = await h
      .db('jobs')
      .update({ next_poll_at: h.db.raw(`now() + interval '60 seconds'`) })
      .where({ id: jobId, status: 'processing' })
      .returning('*');
    if (row) await advanceJob(ctx, row as JobRow);
  };
  const attemptsOf = async (jobId: string) =>
    (await listAttempts(h.db, jobId)).map((a) => ({
      n: a.n,
      provider: a.provider,
      state: a.state,
      error: a.error,
      upstream_id: a.upstream_id,
    }));
  const eventsOf = async (jobId: string) =>
    (await h.db('outbox').select('routing_key').whereRaw(`payload->>'job_id' = ?`, [jobId]).orderBy('id')).map(
      (r: { routing_key: string }) => r.routing_key,
    );
  const completeWith = (p: ScriptedProvider, name: string) => {
    const file = producedFile(h.mediaDir, name);
    p.next = () => ({ state: 'completed', outputs: [{ kind: 'file', path: file, contentType: 'image/png' }] });
  };
  const until = async (check: () => boolean | Promise<boolean>, what: string): Promise<void> => {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  /** A job the first route took and then reported failed: it is now on the second route's attempt. */
  const onSecondRoute = async (prompt: string, opts: { attemptTimeoutMs?: number } = {}) => {
    const [first, second] = [new ScriptedProvider('first'), new ScriptedProvider('second')];
    const { ctx } = contextWith([first, second], opts);
    const u = newUser();
    const { job_id } = await submitJob(ctx, image(u, prompt));
    first.next = () => ({ state: 'failed', error: 'the provider reported a failure' });
    await poll(ctx, job_id);
    return { first, second, ctx, u, job_id };
  };
  /** What billing holds for a job: charge calls, and the refund if any. */
  const money = (jobId: string) => ({
    charges: charges.get(`job:${jobId}`) ?? 0,
    refunded: h.billing.refunds.get(`job:${jobId}`) ?? null,
  });

  it('falls through a route that refuses the submit to the next, which completes the job, charged once', async () => {
    const first = new ScriptedProvider('first');
    const second = new ScriptedProvider('second');
    first.submitError = new ProviderSubmitError('first submit refused: HTTP 503');
    const { ctx } = contextWith([first, second]);
    const u = newUser();
    const { job_id, credits_consumed } = await submitJob(ctx, image(u, 'refused then taken'));
    expect(credits_consumed).toBe(IMAGE_COST);
    expect(second.submits.map((j) => [j.attempt, j.jobId])).toEqual([[2, job_id]]);

    completeWith(second, 'fallback-1.png');
    await poll(ctx, job_id);
    const job = await getJob(ctx, { user_id: u, job_id });
    expect(job).toMatchObject({
      status: 'completed',
      result: { images: [`https://media.test/media/jobs/${job_id}/attempt-2/image-1.png`] },
    });
    expect(await attemptsOf(job_id)).toEqual([
      { n: 1, provider: 'first', state: 'failed', error: 'first submit refused: HTTP 503', upstream_id: null },
      { n: 2, provider: 'second', state: 'succeeded', error: null, upstream_id: `second-${job_id}-2` },
    ]);
    expect(money(job_id)).toEqual({ charges: 1, refunded: null });
    expect(h.billing.balance(u)).toBe(1000 - IMAGE_COST);
    expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, ROUTING_KEYS.jobCompleted]);
  });

  it('moves on when the first upstream reports a failure after taking the job, still charged once', async () => {
    const { second, ctx, u, job_id } = await onSecondRoute('taken then failed');
    expect(second.submits).toHaveLength(1);
    completeWith(second, 'fallback-2.png');
    await poll(ctx, job_id);
    expect((await getJob(ctx, { user_id: u, job_id })).status).toBe('completed');
    expect((await attemptsOf(job_id)).map((a) => [a.provider, a.state])).toEqual([
      ['first', 'failed'],
      ['second', 'succeeded'],
    ]);
    expect(money(job_id)).toEqual({ charges: 1, refunded: null });
    expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, ROUTING_KEYS.jobCompleted]);
  });

  describe('a crash between attempts (the process restarted in the middle)', () => {
    it('after claiming the next attempt, before its upstream answered: the restarted service fails that attempt and goes on; one end, one charge', async () => {
      const [first, second, third] = [
        new ScriptedProvider('first'),
        new ScriptedProvider('second'),
        new ScriptedProvider('third'),
      ];
      const before = contextWith([first, second, third]);
      const u = newUser();
      const { job_id } = await submitJob(before.ctx, image(u, 'crash mid-submit'));
      first.next = () => ({ state: 'failed', error: 'the provider reported a failure' });
      // The process "dies" inside the second route's submit: that handler never goes on.
      let answerLate: () => void = () => undefined;
      second.duringSubmit = () => new Promise<void>((resolve) => (answerLate = resolve));
      void poll(before.ctx, job_id);
      await until(
        async () => (await attemptsOf(job_id)).some((a) => a.n === 2 && a.state === 'submitting'),
        'attempt 2 to be claimed',
      );

      // The restarted service: new provider objects, fresh breakers, the same database.
      const [first2, second2, third2] = [
        new ScriptedProvider('first'),
        new ScriptedProvider('second'),
        new ScriptedProvider('third'),
      ];
      const after = contextWith([first2, second2, third2], { submitStaleAfterMs: 0 });
      await poll(after.ctx, job_id);
      expect(second2.submits).toHaveLength(0);
      expect(third2.submits.map((j) => j.attempt)).toEqual([3]);
      expect(
        after.lines.some(
          (l) =>
            l.msg ===
            'an attempt was interrupted during its submit; trying the next route (the upstream may have taken it, and may bill for it)',
        ),
      ).toBe(true);
      completeWith(third2, 'crash-1.png');
      await poll(after.ctx, job_id);

      // Had the old handler not died but only stalled, its late answer is undone upstream and changes nothing.
      answerLate();
      await until(() => second.cancels.includes(`second-${job_id}-2`), 'the late submit to be cancelled upstream');
      expect((await getJob(after.ctx, { user_id: u, job_id })).status).toBe('completed');
      expect((await attemptsOf(job_id)).map((a) => [a.n, a.state, a.error])).toEqual([
        [1, 'failed', 'the provider reported a failure'],
        [2, 'failed', 'interrupted during submit'],
        [3, 'succeeded', null],
      ]);
      expect(money(job_id)).toEqual({ charges: 1, refunded: null });
      expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, ROUTING_KEYS.jobCompleted]);
    });

    it('after the next upstream took the job, before the job recorded it: the restarted service adopts that request, never submits twice', async () => {
      const [first, second] = [new ScriptedProvider('first'), new ScriptedProvider('second')];
      // The process that dies has its own connections to the database.
      const doomedDb = createDb({ url: h.env.databaseUrl, schema: 'jobs', poolMax: 2 });
      const before = contextWith([first, second]);
      before.ctx.db = doomedDb;
      const u = newUser();
      const { job_id } = await submitJob(before.ctx, image(u, 'crash after the upstream took it'));
      first.next = () => ({ state: 'failed', error: 'the provider reported a failure' });
      // Hold the job's row while the second upstream answers, so the handler stops right before
      // writing the request id on the job; then kill its database session, as a crash would.
      const lock = await h.db.transaction();
      second.duringSubmit = async () => void (await lock('jobs').where({ id: job_id }).forUpdate());
      const handler = poll(before.ctx, job_id).catch((err: Error) => err);
      let blocked: { pid: number } | undefined;
      await until(async () => {
        blocked = (
          await h.db.raw(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'update "jobs"%'`,
          )
        ).rows[0];
        return blocked !== undefined;
      }, 'the handler to block on the job row');
      // knex reports the killed connection on the console; expected here.
      const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      await h.db.raw('SELECT pg_terminate_backend(?)', [blocked!.pid]);
      // The socket's own error (ECONNRESET) may come from node's realm, not jest's: no instanceof.
      expect(types.isNativeError(await handler)).toBe(true);
      await doomedDb.destroy();
      await lock.rollback();
      expect(await findJob(h.db, job_id)).toMatchObject({
        status: 'processing',
        attempt: 2,
        provider: 'second',
        provider_request_id: null,
      });

      const second2 = new ScriptedProvider('second');
      const after = contextWith([new ScriptedProvider('first'), second2]);
      completeWith(second2, 'crash-2.png');
      await poll(after.ctx, job_id); // adopts the request the upstream took
      await poll(after.ctx, job_id); // polls it: completed
      expect(second.submits).toHaveLength(1);
      expect(second2.submits).toHaveLength(0);
      expect([...second2.statusCalls.keys()]).toEqual([`second-${job_id}-2`]);
      expect((await getJob(after.ctx, { user_id: u, job_id })).status).toBe('completed');
      expect(money(job_id)).toEqual({ charges: 1, refunded: null });
      expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, ROUTING_KEYS.jobCompleted]);
      quiet.mockRestore();
    });
  });

  it('discards, and logs, a late success of an attempt given up (a poll that raced the move on, and a signed callback)', async () => {
    const first = new SigningProvider('first');
    const second = new ScriptedProvider('second');
    const { ctx, lines } = contextWith([first, second], { attemptTimeoutMs: 60_000 });
    const u = newUser();
    const { job_id } = await submitJob(ctx, image(u, 'slow first upstream'));
    const stale = (await findJob(h.db, job_id))!;
    // The first attempt runs past its provider's attempt timeout: given up (cancelled upstream), the second route takes the job.
    await h
      .db('jobs')
      .update({ attempt_deadline_at: new Date(Date.now() - 1) })
      .where({ id: job_id });
    await poll(ctx, job_id);
    expect(first.cancels).toEqual([`first-${job_id}-1`]);
    expect(await findJob(h.db, job_id)).toMatchObject({ attempt: 2, provider: 'second' });

    // Its result arrives anyway: a handler still holding the old row reads it...
    completeWith(first, 'late.png');
    await advanceJob(ctx, stale);
    expect(
      lines.filter(
        (l) =>
          l.jobId === job_id &&
          l.attempt === 1 &&
          String(l.msg).startsWith('late success of an attempt no longer current'),
      ),
    ).toHaveLength(1);
    // ...and its signed callback says it succeeded.
    const token = signCallbackToken(ctx.settings.callbackSecret, {
      jobId: job_id,
      attempt: 1,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const delivery = {
      headers: { 'x-test-signature': 'valid' },
      body: JSON.stringify({ id: `first-${job_id}-1`, status: 'succeeded' }),
    };
    expect(
      await providerCallback(ctx, { job_id, token, attempt: 1, webhook: delivery }, () => Promise.resolve(false)),
    ).toEqual({
      accepted: false,
    });
    expect(
      lines.filter(
        (l) =>
          l.jobId === job_id &&
          l.msg === 'late success of an attempt already given up: result discarded (the upstream may bill for it)',
      ),
    ).toEqual([expect.objectContaining({ attempt: 1, provider: 'first', upstreamId: `first-${job_id}-1` })]);
    expect((await getJob(ctx, { user_id: u, job_id })).status).toBe('processing');

    completeWith(second, 'winner.png');
    await poll(ctx, job_id);
    const done = await getJob(ctx, { user_id: u, job_id });
    expect(done).toMatchObject({
      status: 'completed',
      result: { images: [`https://media.test/media/jobs/${job_id}/attempt-2/image-1.png`] },
    });
    expect((await attemptsOf(job_id)).map((a) => [a.provider, a.state, a.error])).toEqual([
      ['first', 'timed_out', 'attempt timed out'],
      ['second', 'succeeded', null],
    ]);
    expect(money(job_id)).toEqual({ charges: 1, refunded: null });
    expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, ROUTING_KEYS.jobCompleted]);
  });

  it('skips a provider whose circuit opened after N failures in a row for its cool-down, then tries it again', async () => {
    let now = Date.now();
    const first = new ScriptedProvider('first');
    const second = new ScriptedProvider('second');
    first.submitError = new ProviderSubmitError('first submit refused: HTTP 502');
    const { ctx } = contextWith([first, second], { breaker: { failures: 2, cooldownMs: 30_000 }, now: () => now });
    const u = newUser();
    const open = async () =>
      (await ctx.routing.metrics.circuitOpen.get()).values.find((v) => v.labels.provider === 'first')?.value;

    const a = await submitJob(ctx, image(u, 'one'));
    const b = await submitJob(ctx, image(u, 'two'));
    expect(first.submits).toHaveLength(2);
    expect(await open()).toBe(1);

    const c = await submitJob(ctx, image(u, 'three'));
    expect(first.submits).toHaveLength(2);
    const [skipped] = await attemptsOf(c.job_id);
    expect(skipped).toMatchObject({
      provider: 'first',
      state: 'skipped',
      error: `circuit open until ${new Date(now + 30_000).toISOString()}`,
    });
    expect(second.submits.map((j) => j.jobId)).toEqual([a.job_id, b.job_id, c.job_id]);

    // Past the cool-down the provider is tried again; it has recovered, and its success closes the circuit.
    now += 30_001;
    first.submitError = null;
    const d = await submitJob(ctx, image(u, 'four'));
    expect(first.submits.map((j) => j.jobId).at(-1)).toBe(d.job_id);
    completeWith(first, 'recovered.png');
    await poll(ctx, d.job_id);
    expect((await getJob(ctx, { user_id: u, job_id: d.job_id })).status).toBe('completed');
    expect(await open()).toBe(0);
    for (const j of [a, b, c, d]) expect(money(j.job_id)).toEqual({ charges: 1, refunded: null });
    expect(h.billing.balance(u)).toBe(1000 - 4 * IMAGE_COST);
    await h.db('jobs').update({ status: 'failed' }).whereIn('id', [a.job_id, b.job_id, c.job_id]);
  });

  it('cancels the current attempt upstream (not an earlier one), refunds in full, and ignores its result after', async () => {
    const { first, second, ctx, u, job_id } = await onSecondRoute('cancel me on the second route');
    expect(await cancelJob(ctx, { user_id: u, job_id })).toEqual({
      job_id,
      status: 'cancelled',
      refunded_credits: IMAGE_COST,
    });
    // The upstream cancel follows the answer (best effort, in the background), then the attempt is recorded cancelled.
    await until(async () => (await attemptsOf(job_id))[1].state === 'cancelled', 'the attempt to be cancelled');
    expect(second.cancels).toEqual([`second-${job_id}-2`]);
    expect(first.cancels).toEqual([]);
    completeWith(second, 'too-late.png');
    await poll(ctx, job_id);
    expect((await getJob(ctx, { user_id: u, job_id })).status).toBe('cancelled');
    expect((await attemptsOf(job_id)).map((a) => [a.provider, a.state])).toEqual([
      ['first', 'failed'],
      ['second', 'cancelled'],
    ]);
    expect(money(job_id)).toEqual({ charges: 1, refunded: IMAGE_COST });
    expect(h.billing.balance(u)).toBe(1000);
    expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, jobEvents.cancelled.routingKey]);
  });

  describe('when every route fails', () => {
    it('at submit: the contract’s 502, the charge refunded, no job to see', async () => {
      const first = new ScriptedProvider('first');
      const second = new ScriptedProvider('second');
      first.submitError = new ProviderSubmitError('first submit refused: HTTP 500');
      second.submitError = new Error('socket hang up');
      const { ctx } = contextWith([first, second]);
      const u = newUser();
      await expect(submitJob(ctx, image(u, 'nobody takes it'))).rejects.toMatchObject({
        kind: 'upstream_failed',
        body: { error: PROVIDER_SUBMIT_FAILED },
      });
      const row = (await h.db('jobs').first('*').where({ user_id: u })) as JobRow;
      expect(row).toMatchObject({ status: 'rejected', refund_state: 'done' });
      await expect(getJob(ctx, { user_id: u, job_id: row.id })).rejects.toMatchObject({ kind: 'not_found' });
      expect((await attemptsOf(row.id)).map((a) => [a.provider, a.state, a.error])).toEqual([
        ['first', 'failed', 'first submit refused: HTTP 500'],
        ['second', 'failed', 'submit failed'],
      ]);
      expect(money(row.id)).toEqual({ charges: 1, refunded: IMAGE_COST });
      expect(h.billing.balance(u)).toBe(1000);
      expect(await eventsOf(row.id)).toEqual([]);
    });

    it('past the job’s own deadline: failed as timed out, refunded once, counted in jobs_timed_out_total', async () => {
      const { ctx, u, job_id } = await onSecondRoute('past its deadline');
      await h
        .db('jobs')
        .update({ deadline_at: new Date(Date.now() - 1) })
        .where({ id: job_id });
      await poll(ctx, job_id);
      expect(await getJob(ctx, { user_id: u, job_id })).toMatchObject({
        status: 'failed',
        error: 'Generation timed out',
      });
      expect((await attemptsOf(job_id)).map((a) => [a.provider, a.state])).toEqual([
        ['first', 'failed'],
        ['second', 'timed_out'],
      ]);
      expect(money(job_id)).toEqual({ charges: 1, refunded: IMAGE_COST });
      expect((await ctx.routing.metrics.timedOut.get()).values[0].value).toBe(1);
      await poll(ctx, job_id);
      expect((await ctx.routing.metrics.timedOut.get()).values[0].value).toBe(1);
    });

    it('after running: failed with the last route’s error, refunded once, one job.failed event', async () => {
      const { second, ctx, u, job_id } = await onSecondRoute('everyone fails', { attemptTimeoutMs: 60_000 });
      const timedOutBefore = (await ctx.routing.metrics.timedOut.get()).values[0].value;
      // The last route runs out of time.
      await h
        .db('jobs')
        .update({ attempt_deadline_at: new Date(Date.now() - 1) })
        .where({ id: job_id });
      await poll(ctx, job_id);
      expect(await getJob(ctx, { user_id: u, job_id })).toMatchObject({
        status: 'failed',
        error: 'Generation timed out',
        result: null,
      });
      expect((await attemptsOf(job_id)).map((a) => [a.provider, a.state])).toEqual([
        ['first', 'failed'],
        ['second', 'timed_out'],
      ]);
      expect(second.cancels).toEqual([`second-${job_id}-2`]);
      expect((await ctx.routing.metrics.timedOut.get()).values[0].value).toBe(timedOutBefore + 1);
      expect(money(job_id)).toEqual({ charges: 1, refunded: IMAGE_COST });
      expect(h.billing.balance(u)).toBe(1000);
      expect(await eventsOf(job_id)).toEqual([ROUTING_KEYS.jobProcessing, jobEvents.failed.routingKey]);
      // A late poll changes nothing: the job has one outcome.
      await poll(ctx, job_id);
      expect(money(job_id)).toEqual({ charges: 1, refunded: IMAGE_COST });
    });
  });
});
