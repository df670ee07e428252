import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { api, userWithKey } from '../support/fleet';
import { until, waitForJob } from '../support/jobs';
import { pooledFleet, type PooledFleet } from '../support/pool';
import { startReceiver, type ReceivedWebhook } from '../support/webhook-receiver';

const IMAGE = '/api/v1/image/imagegen/generate';
const stripe = new Stripe('sk_test_unused');

/** Whether Stripe's own library accepts the delivery under `secret`. */
function stripeAccepts(hook: ReceivedWebhook, secret: string): boolean {
  try {
    stripe.webhooks.constructEvent(hook.rawBody, String(hook.headers['x-service-signature']), secret);
    return true;
  } catch {
    return false;
  }
}

const eventOf = (hook: ReceivedWebhook) => String(hook.headers['x-service-event']);
const jobOf = (hook: ReceivedWebhook) => (JSON.parse(hook.rawBody) as { job_id: string }).job_id;

/** The key's webhook endpoint over REST, its filter, its secret's rotation and its signature schemes, on a real fleet. */
describe('the webhook endpoint API', () => {
  let fleet: PooledFleet;

  beforeAll(async () => {
    // The pool delivers to http receivers on loopback (support/pool.ts POOL_ENV).
    fleet = await pooledFleet();
  });

  async function imageJob(key: string, prompt: string): Promise<string> {
    const res = await api(fleet, 'POST', IMAGE, { key, body: { prompt } });
    expect(res.status).toBe(202);
    return String(res.body.job_id);
  }

  it('sets (201, secret once), reads, changes (200), and deletes the key’s own endpoint', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 1_000);
      const sameUser = await fleet.admin('key:create', '--email', u.email, '--scopes', 'all');
      expect((await api(fleet, 'GET', '/api/v1/webhook', { key: u.key })).body).toEqual({
        error: 'No webhook configured',
      });

      const created = await api(fleet, 'PUT', '/api/v1/webhook', { key: u.key, body: { url: receiver.url } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        url: receiver.url,
        events: ['job.completed', 'job.failed', 'job.cancelled'],
        signature_scheme: 'stripe',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_/),
      });

      const got = await api(fleet, 'GET', '/api/v1/webhook', { key: u.key });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...created.body, secret: undefined, failing_since: null, disabled_at: null });
      expect(got.body).not.toHaveProperty('secret');
      // Another key of the same user has its own (none).
      expect((await api(fleet, 'GET', '/api/v1/webhook', { key: String(sameUser.key) })).status).toBe(404);

      const changed = await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: `${receiver.url}/b`, events: ['job.failed'] },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ url: `${receiver.url}/b`, events: ['job.failed'] });
      expect(changed.body).not.toHaveProperty('secret');

      const unknown = await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: receiver.url, events: ['job.completed', 'job.exploded'] },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('job.exploded');
      const credentials = await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: 'http://user:pw@127.0.0.1:9/x' },
      });
      expect(credentials.status).toBe(400);

      expect((await api(fleet, 'DELETE', '/api/v1/webhook', { key: u.key })).body).toEqual({ deleted: true });
      expect((await api(fleet, 'DELETE', '/api/v1/webhook', { key: u.key })).status).toBe(404);
      expect((await api(fleet, 'GET', '/api/v1/webhook', { key: u.key })).status).toBe(404);
      expect((await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', { key: u.key, body: {} })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('never sends a job.completed its filter leaves out, and sends the next once the filter allows it', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: receiver.url, events: ['job.cancelled'] },
      });
      const filtered = await imageJob(u.key, 'filtered out');
      await waitForJob(fleet, u.key, filtered);
      // A later event the filter lets through: the endpoint's lane sends in arrival order, so once it
      // is in, the earlier job.completed has been passed over.
      const long = await api(fleet, 'POST', '/api/v1/video/vidgen-2/generate', {
        key: u.key,
        body: { prompt: 'cancel me', duration_seconds: 15 },
      });
      await api(fleet, 'DELETE', `/api/v1/jobs/${long.body.job_id}`, { key: u.key });
      await until('job.cancelled', () => receiver.received.some((r) => eventOf(r) === 'job.cancelled'));
      expect(receiver.received.map(eventOf)).toEqual(['job.cancelled']);
      const log = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
      expect(log.body.deliveries.map((d: { event_type: string }) => d.event_type)).toEqual(['job.cancelled']);
      expect(log.body.has_more).toBe(false);

      await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: receiver.url, events: ['job.completed', 'job.cancelled'] },
      });
      const allowed = await imageJob(u.key, 'now allowed');
      await until('job.completed', () => receiver.received.some((r) => eventOf(r) === 'job.completed'));
      expect(receiver.received.filter((r) => eventOf(r) === 'job.completed').map(jobOf)).toEqual([allowed]);

      // A test event is sent whatever the filter.
      await api(fleet, 'PUT', '/api/v1/webhook', { key: u.key, body: { url: receiver.url, events: ['job.failed'] } });
      const test = await api(fleet, 'POST', '/api/v1/webhook/test', { key: u.key, body: { type: 'job.completed' } });
      expect(test.status).toBe(200);
      expect(test.body.delivery.status_code).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('signs with the old and the new secret during the overlap, and with the new only after overlap_hours 0', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      const created = await api(fleet, 'PUT', '/api/v1/webhook', { key: u.key, body: { url: receiver.url } });
      const original = String(created.body.secret);

      const rolled = await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', { key: u.key, body: {} });
      expect(rolled.status).toBe(200);
      const next = String(rolled.body.secret);
      expect(next).not.toBe(original);
      const expires = Date.parse(rolled.body.previous_secret_expires_at);
      expect(expires).toBeGreaterThan(Date.now() + 23 * 3_600_000);

      const during = await imageJob(u.key, 'during the overlap');
      await until('the delivery in the overlap', () => receiver.received.some((r) => jobOf(r) === during));
      const overlapHook = receiver.received.find((r) => jobOf(r) === during)!;
      expect(String(overlapHook.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(stripeAccepts(overlapHook, original)).toBe(true);
      expect(stripeAccepts(overlapHook, next)).toBe(true);

      const now = await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', { key: u.key, body: { overlap_hours: 0 } });
      expect(now.body.previous_secret_expires_at).toBeNull();
      const latest = String(now.body.secret);
      const after = await imageJob(u.key, 'after the overlap');
      await until('the delivery after', () => receiver.received.some((r) => jobOf(r) === after));
      const afterHook = receiver.received.find((r) => jobOf(r) === after)!;
      expect(stripeAccepts(afterHook, latest)).toBe(true);
      expect(stripeAccepts(afterHook, next)).toBe(false);

      const bad = await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', {
        key: u.key,
        body: { overlap_hours: 73 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('overlap_hours must be an integer between 0 and 72');
    } finally {
      await receiver.close();
    }
  });

  it('signs the standard scheme so that standardwebhooks verifies it', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      const created = await api(fleet, 'PUT', '/api/v1/webhook', {
        key: u.key,
        body: { url: receiver.url, signature_scheme: 'standard' },
      });
      expect(created.body.signature_scheme).toBe('standard');
      const secret = String(created.body.secret);
      const job = await imageJob(u.key, 'standard webhooks');
      await until('the delivery', () => receiver.received.some((r) => jobOf(r) === job));
      const hook = receiver.received.find((r) => jobOf(r) === job)!;
      const headers = hook.headers as Record<string, string>;
      expect(headers['webhook-id']).toBe(headers['x-service-event-id']);
      expect(headers['webhook-id']).toMatch(/^evt_/);
      expect(new Webhook(secret).verify(hook.rawBody, headers)).toMatchObject({ job_id: job, status: 'completed' });
      expect(headers['x-service-signature']).toBeUndefined();

      // A rotation signs with both, each verifying on its own.
      const rolled = await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', {
        key: u.key,
        body: { overlap_hours: 1 },
      });
      const second = await imageJob(u.key, 'standard, rolled');
      await until('the second delivery', () => receiver.received.some((r) => jobOf(r) === second));
      const rolledHook = receiver.received.find((r) => jobOf(r) === second)!;
      const rolledHeaders = rolledHook.headers as Record<string, string>;
      expect(rolledHeaders['webhook-signature'].split(' ')).toHaveLength(2);
      for (const key of [secret, String(rolled.body.secret)])
        expect(new Webhook(key).verify(rolledHook.rawBody, rolledHeaders)).toMatchObject({ job_id: second });
    } finally {
      await receiver.close();
    }
  });

  it('loses no event across a rotation made while 20 jobs complete', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 100_000);
      const created = await api(fleet, 'PUT', '/api/v1/webhook', { key: u.key, body: { url: receiver.url } });
      const secrets = [String(created.body.secret)];
      const jobs: string[] = [];
      for (let i = 0; i < 20; i++) {
        jobs.push(await imageJob(u.key, `rotation ${i}`));
        if (i === 9) {
          const rolled = await api(fleet, 'POST', '/api/v1/webhook/secret/rotate', { key: u.key, body: {} });
          secrets.push(String(rolled.body.secret));
        }
      }
      await until('all 20 deliveries', () => new Set(receiver.received.map(jobOf)).size === 20, 90_000);
      expect(new Set(receiver.received.map(jobOf))).toEqual(new Set(jobs));
      // Every delivery verifies under the secret the receiver had before the rotation, or the new one.
      for (const hook of receiver.received) expect(secrets.some((s) => stripeAccepts(hook, s))).toBe(true);
      const last = receiver.received.filter((r) => jobOf(r) === jobs[19]);
      expect(last.some((hook) => stripeAccepts(hook, secrets[1]))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('pages deliveries with has_more and bounds them, and jobs, by created[gte]/created[lte]', async () => {
    const receiver = await startReceiver();
    try {
      const u = await userWithKey(fleet, 'all', 10_000);
      await api(fleet, 'PUT', '/api/v1/webhook', { key: u.key, body: { url: receiver.url } });
      const before = new Date().toISOString();
      for (const p of ['one', 'two', 'three']) await waitForJob(fleet, u.key, await imageJob(u.key, p));
      await until('three deliveries recorded', async () => {
        const { body } = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: u.key });
        return body.deliveries.length === 3;
      });
      const page = await api(fleet, 'GET', '/api/v1/webhook/deliveries?limit=2', { key: u.key });
      expect(page.body.deliveries).toHaveLength(2);
      expect(page.body.has_more).toBe(true);
      const rest = await api(
        fleet,
        'GET',
        `/api/v1/webhook/deliveries?limit=2&starting_after=${page.body.deliveries[1].id}`,
        {
          key: u.key,
        },
      );
      expect(rest.body.deliveries).toHaveLength(1);
      expect(rest.body.has_more).toBe(false);

      const q = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params).toString()}`;
      const future = new Date(Date.now() + 3_600_000).toISOString();
      for (const path of ['/api/v1/webhook/deliveries', '/api/v1/jobs']) {
        const list = (body: Record<string, unknown[]>) => body.deliveries ?? body.jobs;
        expect(list((await api(fleet, 'GET', q(path, { 'created[gte]': before }), { key: u.key })).body)).toHaveLength(
          3,
        );
        expect(list((await api(fleet, 'GET', q(path, { 'created[gte]': future }), { key: u.key })).body)).toHaveLength(
          0,
        );
        expect(list((await api(fleet, 'GET', q(path, { 'created[lte]': before }), { key: u.key })).body)).toHaveLength(
          0,
        );
        const bad = await api(fleet, 'GET', q(path, { 'created[gte]': 'yesterday' }), { key: u.key });
        expect(bad.status).toBe(400);
        expect(bad.body.error).toBe('created[gte] must be an ISO 8601 timestamp');
      }
    } finally {
      await receiver.close();
    }
  });
});
