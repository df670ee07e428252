import { api, startFleet, userWithKey, type Fleet } from '../support/fleet';
import { until, waitForJob } from '../support/jobs';
import { POOL_ENV } from '../support/pool';
import { startReceiver, verifySignature } from '../support/webhook-receiver';

/** Signed job webhooks through the real fleet: jobs -> outbox -> events -> dispatcher -> receiver. */
describe('job webhooks', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    // The pool's settings on a fleet of its own: this suite stops and restarts the dispatcher.
    fleet = await startFleet({ ...POOL_ENV });
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  it('delivers a signed job.completed for a finished job, and job.cancelled for a cancelled one', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      const set = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      expect(set).toEqual({ url: receiver.url, secret: expect.stringMatching(/^whsec_/) });
      const secret = String(set.secret);

      const done = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: u.key,
        body: { prompt: 'webhook me' },
      });
      const job = await waitForJob(fleet, u.key, done.body.job_id);
      await until('job.completed', () => receiver.received.length >= 1);
      const hook = receiver.received[0];
      expect(hook.headers['content-type']).toBe('application/json');
      expect(hook.headers['user-agent']).toMatch(/\/1\.0$/);
      expect(hook.headers['x-service-event']).toBe('job.completed');
      // One id names the event everywhere: the webhook's is its id in the user's event log.
      const log = await api(fleet, 'GET', '/api/v1/events?limit=100', { key: u.key });
      const completed = (log.body.events as { id: string; type: string; job_id: string }[]).filter(
        (e) => e.job_id === job.job_id && e.type === 'job.completed',
      );
      expect(completed).toHaveLength(1);
      expect(hook.headers['x-service-event-id']).toBe(completed[0].id);
      expect(Number(hook.headers['x-service-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(hook.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifySignature(secret, String(hook.headers['x-service-signature']), hook.rawBody)).toBe(true);
      // A tampered body, or another secret, fails verification.
      expect(
        verifySignature(
          secret,
          String(hook.headers['x-service-signature']),
          hook.rawBody.replace('completed', 'failed'),
        ),
      ).toBe(false);
      expect(verifySignature('whsec_other', String(hook.headers['x-service-signature']), hook.rawBody)).toBe(false);
      const body = JSON.parse(hook.rawBody);
      // The contract's fields in its order, then who made the job (source, project_id).
      expect(Object.keys(body)).toEqual([
        'job_id',
        'status',
        'model',
        'type',
        'credits_consumed',
        'created_at',
        'completed_at',
        'result',
        'error',
        'source',
        'project_id',
      ]);
      // The Job's input and progress are not in webhook bodies (sent once a job ended).
      const { input: _input, progress: _progress, ...jobFields } = job;
      expect(body).toEqual({ ...jobFields, model: 'fal-ai/imagegen-2' }); // the upstream endpoint path, as the contract says

      const long = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: u.key,
        body: { prompt: 'cancel me', duration_seconds: 15 },
      });
      await api(fleet, 'DELETE', `/api/v1/jobs/${long.body.job_id}`, { key: u.key });
      await until('job.cancelled', () =>
        receiver.received.some((r) => r.headers['x-service-event'] === 'job.cancelled'),
      );
      const cancelled = receiver.received.find((r) => r.headers['x-service-event'] === 'job.cancelled')!;
      expect(verifySignature(secret, String(cancelled.headers['x-service-signature']), cancelled.rawBody)).toBe(true);
      expect(JSON.parse(cancelled.rawBody)).toMatchObject({
        job_id: long.body.job_id,
        status: 'cancelled',
        result: null,
      });

      // Recorded after the receiver's answer: wait for the log, not for the request.
      await until('both attempts recorded', async () => {
        const { body } = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
        return body.deliveries.length === 2;
      });
      const { deliveries } = (await fleet.admin('webhook:deliveries', '--key-id', String(u.keyId))) as {
        deliveries: { event: string; status_code: number; attempt: number; job_id: string }[];
      };
      expect(deliveries.map((d) => [d.event, d.status_code, d.attempt])).toEqual([
        ['job.cancelled', 200, 1],
        ['job.completed', 200, 1],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('retries a failed delivery after the first delay, also across a dispatcher crash, and delivers once', async () => {
    // 500 first; the dispatcher is killed while the retry waits in the broker; then 200.
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const u = await userWithKey(fleet, 'all', 1000);
      const { secret } = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', receiver.url);
      const submit = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', {
        key: u.key,
        body: { prompt: 'retry me' },
      });
      await waitForJob(fleet, u.key, submit.body.job_id);
      await until('first attempt', () => receiver.received.length >= 1);
      // Killed once the attempt is recorded: its retry waits in the broker, or (if the kill lands
      // before the retry is scheduled) the event comes back and is numbered after what was recorded.
      await until('first attempt recorded', async () => {
        const page = (await fleet.admin('webhook:deliveries', '--key-id', String(u.keyId))) as {
          deliveries: unknown[];
        };
        return page.deliveries.length >= 1;
      });
      await fleet.stopService('webhook-dispatcher', 'SIGKILL');
      await new Promise((r) => setTimeout(r, 1500)); // the retry's delay passes while nobody consumes
      await fleet.startService('webhook-dispatcher');
      await until('the retry', () => receiver.received.length >= 2);
      await new Promise((r) => setTimeout(r, 2500)); // nothing more arrives
      expect(receiver.received).toHaveLength(2);
      const [first, second] = receiver.received;
      expect(second.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(900);
      expect(verifySignature(String(secret), String(second.headers['x-service-signature']), second.rawBody)).toBe(true);
      const { deliveries } = (await fleet.admin('webhook:deliveries', '--key-id', String(u.keyId))) as {
        deliveries: { status_code: number; attempt: number }[];
      };
      expect(deliveries.map((d) => [d.attempt, d.status_code])).toEqual([
        [2, 200],
        [1, 500],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('rotates the signing secret by clearing and setting the URL again', async () => {
    const u = await userWithKey(fleet, 'models:read');
    const first = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', 'http://127.0.0.1:8443/a');
    const again = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', 'http://127.0.0.1:8443/b');
    expect(again).toEqual({ url: 'http://127.0.0.1:8443/b' }); // no new secret on a URL change
    expect(await fleet.admin('webhook:clear', '--key-id', String(u.keyId))).toEqual({ cleared: true });
    const rotated = await fleet.admin('webhook:set', '--key-id', String(u.keyId), '--url', 'http://127.0.0.1:8443/b');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(first.secret);
  });
});
