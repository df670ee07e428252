import request from 'supertest';
import { BusUnavailableError, type Bus } from '@mf/bus';
import { providerCallbackReceived } from '@mf/contracts';
import { createHttpApp, finish } from '@mf/http';
import { createLogger } from '@mf/logger';
import { signCallbackToken } from '@mf/runtime';
import { MAX_CALLBACK_BODY, providerCallbackRoutes } from './provider-callback.routes';

const SECRET = 'a-callback-secret-for-tests';
const logger = createLogger('gateway-callback-test', 'silent');
const inAnHour = () => new Date(Date.now() + 3_600_000);
const tokenFor = (jobId: string, attempt: number, expiresAt = inAnHour()) =>
  signCallbackToken(SECRET, { jobId, attempt, expiresAt });
const T1 = tokenFor('job_abc', 1);
const T2 = tokenFor('job_abc', 2);

/** The route as main.ts mounts it: behind the fleet's app and error handler. */
function appFor(bus: Bus) {
  const app = createHttpApp({ logger });
  app.use(providerCallbackRoutes(bus, { callbackSecret: SECRET }));
  finish(app, logger);
  return app;
}

/** Records the callbacks the route hands to jobs (providerCallbackReceived messages). */
function recordingBus() {
  const calls: Record<string, unknown>[] = [];
  const bus = {
    publishEvent: async (def: { routingKey: string }, payload: Record<string, unknown>) => {
      expect(def.routingKey).toBe(providerCallbackReceived.routingKey);
      calls.push(payload);
    },
  };
  // Only `publishEvent` is used by the route.
  return { bus: bus as unknown as Bus, calls };
}

describe('provider callback route', () => {
  const body = '{"type":"video.generation.completed","data":{"id":"vid-1","status":"completed"}}';

  it('forwards the raw body with the Standard Webhooks headers (Replicate)', async () => {
    const { bus, calls } = recordingBus();
    const res = await request(appFor(bus))
      .post(`/api/providers/callback/job_abc?token=${T2}&attempt=2`)
      .set({
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc',
      })
      .send(body);
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        job_id: 'job_abc',
        token: T2,
        attempt: 2,
        webhook: {
          headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' },
          body,
        },
      },
    ]);
  });

  it('forwards the raw body with X-OpenRouter-Signature (OpenRouter)', async () => {
    const { bus, calls } = recordingBus();
    await request(appFor(bus))
      .post(`/api/providers/callback/job_abc?token=${T1}&attempt=1`)
      .set({
        'content-type': 'application/json',
        'X-OpenRouter-Signature': 't=1700000000,v1=00ff',
        'X-OpenRouter-Idempotency-Key': 'k',
      })
      .send(body);
    expect(calls).toEqual([
      {
        job_id: 'job_abc',
        token: T1,
        attempt: 1,
        webhook: { headers: { 'x-openrouter-signature': 't=1700000000,v1=00ff' }, body },
      },
    ]);
  });

  it("forwards the raw body with fal's X-Fal-Webhook-* signature headers", async () => {
    const { bus, calls } = recordingBus();
    const falBody = '{"request_id":"r-1","status":"OK","payload":{"images":[]}}';
    const headers = {
      'x-fal-webhook-request-id': 'r-1',
      'x-fal-webhook-user-id': 'u-1',
      'x-fal-webhook-timestamp': '1700000000',
      'x-fal-webhook-signature': 'ab'.repeat(64),
    };
    await request(appFor(bus))
      .post(`/api/providers/callback/job_abc?token=${T1}&attempt=1`)
      .set({ 'content-type': 'application/json', ...headers })
      .send(falBody);
    expect(calls).toEqual([{ job_id: 'job_abc', token: T1, attempt: 1, webhook: { headers, body: falBody } }]);
  });

  it('sends no body when no signature scheme is complete, and nothing for a malformed job id', async () => {
    const { bus, calls } = recordingBus();
    const app = appFor(bus);
    await request(app)
      .post(`/api/providers/callback/job_abc?token=${T1}&attempt=1`)
      .set({ 'webhook-id': 'msg_1' })
      .send(body);
    await request(app).post(`/api/providers/callback/not-a-job?token=${T1}&attempt=1`).send(body);
    expect(calls).toEqual([{ job_id: 'job_abc', token: T1, attempt: 1 }]);
  });

  it.each([
    ['a forged token', `token=t&attempt=1`],
    ['no token', `attempt=1`],
    ["another attempt's token", `token=${T2}&attempt=1`],
    ["another job's token", `token=${tokenFor('job_abd', 1)}&attempt=1`],
    ['an expired token', `token=${tokenFor('job_abc', 1, new Date(Date.now() - 1000))}&attempt=1`],
    ['a token without its attempt', `token=${T1}`],
  ])('forwards nothing to jobs for %s, and answers 200 without reading the body', async (_what, query) => {
    const { bus, calls } = recordingBus();
    const res = await request(appFor(bus))
      .post(`/api/providers/callback/job_abc?${query}`)
      .set({
        'content-type': 'application/json',
        'webhook-id': 'm',
        'webhook-timestamp': '1',
        'webhook-signature': 's',
      })
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(res.headers.connection).toBe('close');
    expect(calls).toEqual([]);
  });

  it('answers 503 when the broker does not take the callback, so the provider calls again', async () => {
    const bus = {
      publishEvent: () => Promise.reject(new BusUnavailableError('broker not connected')),
    } as unknown as Bus;
    const res = await request(appFor(bus)).post(`/api/providers/callback/job_abc?token=${T1}&attempt=1`).send(body);
    expect(res.status).toBe(503);
  });

  it('refuses a body over 256 KiB with a 413 and forwards nothing, even with a good token', async () => {
    const { bus, calls } = recordingBus();
    const res = await request(appFor(bus))
      .post(`/api/providers/callback/job_abc?token=${T1}&attempt=1`)
      .set({ 'content-type': 'application/json', 'x-openrouter-signature': 't=1,v1=00' })
      .send(`"${'a'.repeat(MAX_CALLBACK_BODY)}"`);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: `Request body too large (max ${MAX_CALLBACK_BODY} bytes)` });
    expect(calls).toEqual([]);
  });
});
