import net from 'node:net';
import { webhookBody, webhookOutboundRpc, webhooksRpc } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  startHarness,
  setWebhook,
  sleep,
  waitFor,
  type Harness,
  type RunningDispatcher,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';

/** webhooks.sendTest: the dashboard's "send a test event" button, over the real RPC. */
describe('webhook test events', () => {
  let h: Harness;
  let dispatcher: RunningDispatcher;
  let receiver: Receiver;
  let nextKey = 700;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
    dispatcher = await h.startDispatcher({ WEBHOOK_RETRY_DELAYS_MS: '50,50,50', WEBHOOK_TIMEOUT_MS: '500' });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await receiver?.close();
    await h?.close();
  });
  beforeEach(() => {
    receiver.answer = () => 200;
  });

  /** A loopback port nothing listens on. */
  const closedPort = (): Promise<number> =>
    new Promise((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });

  const sendTest = (apiKeyId: number, userId: number) =>
    h.client.rpc(webhookOutboundRpc, 'sendTest', { api_key_id: apiKeyId, user_id: userId });

  it('posts one signed webhook.test event with the documented headers and body, and returns its recorded attempt', async () => {
    const apiKeyId = nextKey++;
    const secret = await setWebhook(h.client, apiKeyId, 5, receiver.url('/test'));
    const before = receiver.requests.length;
    const sentAfter = Date.now();
    const { delivery } = await sendTest(apiKeyId, 5);

    expect(receiver.requests.length).toBe(before + 1);
    const req = receiver.requests[before];
    expect(req.path).toBe('/test');
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Mediaforge-Webhooks/1.0',
      'x-service-event': 'webhook.test',
      'x-service-delivery-attempt': '1',
      'x-service-event-id': delivery.event_id,
      'x-service-test': 'true',
    });
    expect(verifyWebhookSignature(secret, req.headers, req.body)).toBe(true);
    const body = JSON.parse(req.body);
    expect(body).toEqual({ event: 'webhook.test', api_key_id: apiKeyId, sent_at: expect.any(String) });
    expect(Date.parse(body.sent_at)).toBeGreaterThanOrEqual(sentAfter - 1000);

    expect(delivery).toEqual({
      id: expect.any(Number),
      event_id: expect.any(String),
      event: 'webhook.test',
      job_id: '',
      attempt: 1,
      url: receiver.url('/test'),
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
      created_at: expect.any(String),
      succeeded: true,
      test: true,
    });
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: 5 });
    expect(deliveries).toEqual([delivery]);
  });

  it('posts a sample job.completed in the shape of a real event, marked as a test in a header and in the log', async () => {
    const apiKeyId = nextKey++;
    const secret = await setWebhook(h.client, apiKeyId, 5, receiver.url('/sample'));
    const sample = jobEventPayload({ api_key_id: apiKeyId, user_id: 5, job_id: 'job_testsample1' });
    const before = receiver.requests.length;
    const { delivery } = await h.client.rpc(webhookOutboundRpc, 'sendTest', {
      api_key_id: apiKeyId,
      user_id: 5,
      event: 'job.completed',
      sample,
    });

    const req = receiver.requests[before];
    expect(req.headers).toMatchObject({
      'x-service-event': 'job.completed',
      'x-service-test': 'true',
      'x-service-delivery-attempt': '1',
    });
    expect(verifyWebhookSignature(secret, req.headers, req.body)).toBe(true);
    // Exactly what a real job.completed of that job would carry.
    expect(req.body).toBe(webhookBody(sample));
    expect(delivery).toMatchObject({ event: 'job.completed', job_id: 'job_testsample1', status_code: 200, test: true });
    // A real delivery is not a test.
    const eventId = await publishJobEvent(h.client, 'completed', { ...sample, job_id: 'job_realone1' });
    // The attempt is recorded after the receiver's answer: wait for the record, not the request.
    await waitFor(
      async () => (await h.db('deliveries').where({ event_id: eventId })).length === 1,
      'the real delivery',
    );
    expect(receiver.forEvent(eventId)[0].headers['x-service-test']).toBeUndefined();
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: 5 });
    expect(deliveries.map((d) => [d.job_id, d.test])).toEqual([
      ['job_realone1', false],
      ['job_testsample1', true],
    ]);
  });

  it('records a refused test and a receiver that is down, and never retries them', async () => {
    const apiKeyId = nextKey++;
    await setWebhook(h.client, apiKeyId, 5, receiver.url());
    receiver.answer = () => 500;
    const before = receiver.requests.length;
    const failed = await sendTest(apiKeyId, 5);
    expect(failed.delivery).toMatchObject({ status_code: 500, error: null, attempt: 1 });
    // The retry delays here are 50 ms: a retry would have arrived by now.
    await sleep(500);
    expect(receiver.requests.length).toBe(before + 1);

    const closed = `http://127.0.0.1:${await closedPort()}/closed`;
    await h.client.rpc(webhookOutboundRpc, 'setEndpoint', { api_key_id: apiKeyId, user_id: 5, url: closed });
    const down = await sendTest(apiKeyId, 5);
    expect(down.delivery).toMatchObject({ status_code: null, error: 'connection refused', url: closed });
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: 5 });
    expect(deliveries.map((d) => d.status_code)).toEqual([null, 500]);
  });

  it("answers 404 when the key has no webhook, or it is another user's, sending nothing", async () => {
    const apiKeyId = nextKey++;
    const before = receiver.requests.length;
    await expect(sendTest(apiKeyId, 5)).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Webhook endpoint not found' },
    });
    await setWebhook(h.client, apiKeyId, 5, receiver.url());
    await expect(sendTest(apiKeyId, 6)).rejects.toMatchObject({
      kind: 'not_found',
      body: { error: 'Webhook endpoint not found' },
    });
    expect(receiver.requests.length).toBe(before);
    expect(
      (await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: 6 })).deliveries,
    ).toEqual([]);
  });
});
