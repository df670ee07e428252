import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { until, waitForJob } from '../support/jobs';
import { POOL_ENV } from '../support/pool';
import { startReceiver, verifySignature } from '../support/webhook-receiver';
import { sdkCli } from '../support/sdk-cli';

const run = promisify(execFile);
const CLI = sdkCli();

/** The key's delivery tools at /api/v1/webhook through the real fleet, observed at a loopback receiver. */
describe('webhook delivery tools', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    // The pool's settings on a fleet of its own: this suite stops and restarts the dispatcher.
    fleet = await startFleet({ ...POOL_ENV });
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  /**
   * Waits until the key's delivery log holds `n` attempts. The dispatcher records an attempt after
   * the receiver's answer, so a request seen at the receiver may not be in the log yet.
   */
  const recorded = (u: TestUser, n: number, what: string): Promise<void> =>
    until(what, async () => {
      const { body } = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
      return body.deliveries.length === n;
    });

  /** Submits an image job with the key and waits for it to finish. */
  const finishedJob = async (u: TestUser, prompt: string): Promise<string> => {
    const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', { key: u.key, body: { prompt } });
    expect(submit.status).toBe(202);
    await waitForJob(fleet, u.key, submit.body.job_id);
    return submit.body.job_id as string;
  };

  it('lists, details, resends and recovers the key’s own deliveries; another key gets 404', async () => {
    // The receiver refuses (400: not retried) until told otherwise.
    let status = 400;
    const receiver = await startReceiver(() => status);
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      const { secret } = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      const since = new Date(Date.now() - 1000).toISOString();
      const jobId = await finishedJob(u, 'first');
      await recorded(u, 1, 'the first attempt recorded');
      expect(receiver.received).toHaveLength(1);

      const list = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
      expect(list.status).toBe(200);
      expect(list.headers.get('cache-control')).toBe('no-store');
      expect(list.body.deliveries).toEqual([
        {
          id: expect.any(Number),
          event_id: receiver.received[0].headers['x-service-event-id'],
          event_type: 'job.completed',
          job_id: jobId,
          attempt: 1,
          status_code: 400,
          succeeded: false,
          error: null,
          duration_ms: expect.any(Number),
          created_at: expect.any(String),
          test: false,
        },
      ]);
      const first = list.body.deliveries[0];
      expect((await api(fleet, 'GET', '/api/v1/webhook/deliveries?status=failed', { key: u.key })).body).toEqual(
        list.body,
      );
      expect((await api(fleet, 'GET', '/api/v1/webhook/deliveries?status=succeeded', { key: u.key })).body).toEqual({
        deliveries: [],
        has_more: false,
      });

      const detail = await api(fleet, 'GET', `/api/v1/webhook/deliveries/${first.id}`, { key: u.key });
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({ ...first, request_body: receiver.received[0].rawBody, response_body: 'ok' });
      expect(detail.body.request_headers['X-Service-Signature']).toBe(
        receiver.received[0].headers['x-service-signature'],
      );

      // Another key of the same user, and another user's key: the delivery is not theirs.
      const sameUser = await fleet.admin('key:create', '--email', u.email, '--scopes', 'all');
      const other = await userWithKey(fleet, 'all');
      for (const key of [String(sameUser.key), other.key]) {
        const res = await api(fleet, 'GET', `/api/v1/webhook/deliveries/${first.id}`, { key });
        expect(res).toMatchObject({ status: 404, body: { error: 'Delivery not found' } });
        expect((await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key })).body).toEqual({
          deliveries: [],
          has_more: false,
        });
        const resend = await api(fleet, 'POST', `/api/v1/webhook/deliveries/${first.id}/resend`, { key });
        expect(resend.status).toBe(404);
      }

      // Resend: the same event and body, freshly signed, as attempt 2.
      status = 200;
      const resend = await api(fleet, 'POST', `/api/v1/webhook/deliveries/${first.id}/resend`, { key: u.key });
      expect(resend.status).toBe(202);
      expect(resend.body).toEqual({ delivery_id: expect.any(Number) });
      await until('the resend', () => receiver.received.length === 2);
      const again = receiver.received[1];
      expect(again.headers['x-service-event-id']).toBe(first.event_id);
      expect(again.headers['x-service-delivery-attempt']).toBe('2');
      expect(again.rawBody).toBe(receiver.received[0].rawBody);
      expect(verifySignature(String(secret), String(again.headers['x-service-signature']), again.rawBody)).toBe(true);
      const newest = (await api(fleet, 'GET', '/api/v1/webhook/deliveries?limit=1', { key: u.key })).body.deliveries;
      expect(newest).toEqual([expect.objectContaining({ id: resend.body.delivery_id, attempt: 2, succeeded: true })]);

      // Recover: the one event whose last attempt failed is sent again; the resent one is not.
      status = 400;
      await finishedJob(u, 'second');
      await recorded(u, 3, 'the second event’s attempt recorded');
      status = 200;
      const recover = await api(fleet, 'POST', '/api/v1/webhook/recover', { key: u.key, body: { since } });
      expect(recover).toMatchObject({ status: 202, body: { queued: 1 } });
      await recorded(u, 4, 'the recovered attempt recorded');
      expect(receiver.received).toHaveLength(4);
      expect(receiver.received[3].headers['x-service-event-id']).toBe(
        receiver.received[2].headers['x-service-event-id'],
      );
      const page = (await api(fleet, 'GET', '/api/v1/webhook/deliveries?status=succeeded', { key: u.key })).body;
      expect(page.deliveries).toHaveLength(2);
      const older = await api(fleet, 'GET', `/api/v1/webhook/deliveries?starting_after=${page.deliveries[0].id}`, {
        key: u.key,
      });
      expect(older.body.deliveries[0].id).toBeLessThan(page.deliveries[0].id);
    } finally {
      await receiver.close();
    }
  });

  it('answers bad input with a 400 naming the problem, and an impossible delivery id with 404', async () => {
    const u = await userWithKey(fleet, 'all');
    const bad = async (method: string, url: string, body?: unknown) =>
      (await api(fleet, method, url, { key: u.key, body })).body;
    expect(await bad('GET', '/api/v1/webhook/deliveries?status=lost')).toEqual({
      error: 'status must be one of failed, succeeded',
    });
    expect(await bad('GET', '/api/v1/webhook/deliveries?limit=0')).toEqual({
      error: 'limit must be an integer between 1 and 100',
    });
    expect(await bad('GET', '/api/v1/webhook/deliveries?stauts=failed')).toEqual({
      error: 'unknown query parameter: stauts (accepted: status, limit, starting_after, created[gte], created[lte])',
    });
    expect(await bad('POST', '/api/v1/webhook/recover', { since: 'yesterday' })).toEqual({
      error: 'since must be an ISO 8601 timestamp',
    });
    expect(await bad('POST', '/api/v1/webhook/recover', {})).toEqual({ error: 'since is required' });
    // Dates JavaScript reads but no store holds.
    for (const since of ['-004714-01-01T00:00:00Z', '+275760-09-13T00:00:00Z'])
      expect(await bad('POST', '/api/v1/webhook/recover', { since })).toEqual({
        error: 'since must be between 0001-01-01 and 9999-12-31',
      });
    expect(await bad('POST', '/api/v1/webhook/test', { type: 'job.done' })).toEqual({
      error: 'type must be one of job.completed, job.failed, job.cancelled',
    });
    const res = await api(fleet, 'GET', '/api/v1/webhook/deliveries/abc', { key: u.key });
    expect(res).toMatchObject({ status: 404, body: { error: 'Delivery not found' } });
    // No webhook URL: nothing to recover or test against.
    const none = await api(fleet, 'POST', '/api/v1/webhook/test', { key: u.key, body: { type: 'job.completed' } });
    expect(none).toMatchObject({ status: 404, body: { error: 'Webhook endpoint not found' } });
  });

  it('`mediaforge trigger` sends a signed sample of the event through the log to the key’s webhook, marked as a test; POST /webhook/test sends one straight there', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all');
      const { secret } = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      const out = await run(process.execPath, [...CLI, 'trigger', 'job.failed'], {
        env: { ...process.env, MEDIAFORGE_API_KEY: u.key, MEDIAFORGE_BASE_URL: fleet.baseUrl },
      });
      const printed = JSON.parse(out.stdout);
      expect(printed.event).toMatchObject({
        type: 'job.failed',
        test: true,
        id: expect.stringMatching(/^evt_\d{16}$/),
      });
      // Recorded first, then delivered as any event is: wait for it.
      await until('the triggered event at the receiver', () => receiver.received.length === 1);
      const hook = receiver.received[0];
      expect(hook.headers['x-service-event-id']).toBe(printed.event.id);
      expect(hook.rawBody).toBe(printed.event.webhook_body);
      expect(hook.headers['x-service-test']).toBe('true');
      expect(hook.headers['x-service-event']).toBe('job.failed');
      expect(verifySignature(String(secret), String(hook.headers['x-service-signature']), hook.rawBody)).toBe(true);
      const body = JSON.parse(hook.rawBody);
      expect(body).toMatchObject({ status: 'failed', result: null, error: expect.any(String) });
      expect(body.job_id).toMatch(/^job_test/);

      // The API call itself, for the other two types.
      for (const type of ['job.completed', 'job.cancelled']) {
        const res = await api(fleet, 'POST', '/api/v1/webhook/test', { key: u.key, body: { type } });
        expect(res).toMatchObject({ status: 200, body: { delivery: { event_type: type, test: true } } });
      }
      expect(receiver.received.map((r) => JSON.parse(r.rawBody).status)).toEqual(['failed', 'completed', 'cancelled']);
      // Unknown type: the CLI says what it takes, exit code 2.
      await expect(
        run(process.execPath, [...CLI, 'trigger', 'job.done'], {
          env: { ...process.env, MEDIAFORGE_API_KEY: u.key, MEDIAFORGE_BASE_URL: fleet.baseUrl },
        }),
      ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('job.completed, job.failed, job.cancelled') });
    } finally {
      await receiver.close();
    }
  });

  it('disables an endpoint failing without a break for WEBHOOK_DISABLE_AFTER_MS; saving the URL enables it', async () => {
    await fleet.stopService('webhook-dispatcher');
    await fleet.startService('webhook-dispatcher', { WEBHOOK_DISABLE_AFTER_MS: '1' });
    let status = 503;
    const receiver = await startReceiver(() => status);
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      await finishedJob(u, 'failing');
      // Attempt 1 opens the run of failures; the retry a second later is past the limit and disables it.
      await until('two attempts', async () => {
        const { body } = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
        return body.deliveries.length === 2;
      });
      const recover = await api(fleet, 'POST', '/api/v1/webhook/recover', {
        key: u.key,
        body: { since: new Date(0).toISOString() },
      });
      expect(recover.status).toBe(409);
      expect(recover.body.error).toMatch(/disabled/);
      expect(await fleet.admin('webhook:get', '--key-id', String(u.keyId))).toMatchObject({
        url: receiver.url,
        failing_since: expect.any(String),
        disabled_at: expect.any(String),
      });

      status = 200;
      await finishedJob(u, 'not sent');
      // Wait out the retry schedule: nothing more is sent to a disabled endpoint.
      await new Promise((r) => setTimeout(r, 3000));
      expect(receiver.received).toHaveLength(2);

      await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      expect(await fleet.admin('webhook:get', '--key-id', String(u.keyId))).toMatchObject({ disabled_at: null });
      const jobId = await finishedJob(u, 'enabled again');
      await until('the delivery after enabling', () => receiver.received.length === 3);
      expect(JSON.parse(receiver.received[2].rawBody).job_id).toBe(jobId);
    } finally {
      await receiver.close();
    }
  });
});
