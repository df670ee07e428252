import { randomUUID } from 'node:crypto';
import { deadLetterQueue, QUEUES, webhooksRpc } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  queueDepth,
  setWebhook,
  startHarness,
  waitFor,
  type Harness,
  type RunningDispatcher,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';

/** Job events in, signed POSTs out: the dispatcher on the real broker and database. */
describe('webhook delivery', () => {
  let h: Harness;
  let dispatcher: RunningDispatcher;
  let receiver: Receiver;
  let nextKey = 100;

  beforeAll(async () => {
    h = await startHarness();
    dispatcher = await h.startDispatcher();
    receiver = await Receiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  beforeEach(() => {
    receiver.answer = () => 200;
    receiver.answerDelayMs = 0;
  });

  const newKey = () => ({ apiKeyId: nextKey++, userId: 7 });

  /** Publishes like the jobs outbox relay, counting what this file published. */
  let published = 0;
  const publish = (...args: Parameters<typeof publishJobEvent>): Promise<string> => {
    published++;
    return publishJobEvent(...args);
  };
  /** Every event published so far was taken off the broker, and every attempt owed was made. */
  const allHandled = () =>
    waitFor(
      async () => (await dispatcher.handled()) === published && (await h.pending()) === 0,
      `${published} events to be handled and their attempts made`,
      30_000,
    );

  it('posts exactly the documented headers and body, with a signature that verifies', async () => {
    const { apiKeyId, userId } = newKey();
    const secret = await setWebhook(h.client, apiKeyId, userId, receiver.url(`/hook/${apiKeyId}`));
    const payload = jobEventPayload({ api_key_id: apiKeyId, user_id: userId });
    const eventId = await publish(h.client, 'completed', payload);
    await allHandled();

    const [req] = receiver.forEvent(eventId);
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/hook/${apiKeyId}`);
    const timestamp = Number(req.headers['x-service-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    // Every header but the transport ones Node adds (host, content-length, connection).
    const { host, 'content-length': contentLength, connection, ...sent } = req.headers;
    expect(host).toBeDefined();
    expect(Number(contentLength)).toBe(Buffer.byteLength(req.body));
    expect(connection).toBeDefined();
    expect(sent).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Mediaforge-Webhooks/1.0',
      'x-service-event': 'job.completed',
      'x-service-timestamp': String(timestamp),
      'x-service-signature': expect.stringMatching(new RegExp(`^t=${timestamp},v1=[0-9a-f]{64}$`)),
      'x-service-event-id': eventId,
      'x-service-delivery-attempt': '1',
    });
    expect(req.body).toBe(
      JSON.stringify({
        job_id: payload.job_id,
        status: 'completed',
        model: 'fal-ai/vidgen-2/text-to-video',
        type: 'video',
        credits_consumed: 120,
        created_at: '2025-01-02T03:04:05.000Z',
        completed_at: '2025-01-02T03:05:05.000Z',
        result: { video: 'https://media.test/media/out.mp4' },
        error: null,
        source: 'api',
        project_id: null,
      }),
    );
    expect(verifyWebhookSignature(secret, req.headers, req.body)).toBe(true);
    expect(
      verifyWebhookSignature(secret, req.headers, req.body.replace('"credits_consumed":120', '"credits_consumed":0')),
    ).toBe(false);
    expect(
      verifyWebhookSignature(secret, { ...req.headers, 'x-service-timestamp': String(timestamp + 1) }, req.body),
    ).toBe(false);
    expect(verifyWebhookSignature(`${secret}x`, req.headers, req.body)).toBe(false);

    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: userId });
    expect(deliveries).toEqual([
      expect.objectContaining({
        event_id: eventId,
        event: 'job.completed',
        job_id: payload.job_id,
        attempt: 1,
        url: receiver.url(`/hook/${apiKeyId}`),
        status_code: 200,
        error: null,
      }),
    ]);
  });

  it("names the event by its event-log id (the one streams and GET /events show), not the broker's message id", async () => {
    const { apiKeyId, userId } = newKey();
    await setWebhook(h.client, apiKeyId, userId, receiver.url());
    const payload = jobEventPayload({ api_key_id: apiKeyId, user_id: userId });
    const messageId = randomUUID();
    await publish(h.client, 'completed', payload, messageId);
    await allHandled();

    expect(payload.event_id).toMatch(/^evt_\d{16}$/);
    const [req] = receiver.requests.filter((r) => r.body.includes(payload.job_id));
    expect(req.headers['x-service-event-id']).toBe(payload.event_id);
    const rows = await h.db('deliveries').where({ api_key_id: apiKeyId }).select('event_id');
    expect(rows).toEqual([{ event_id: payload.event_id }]);
    expect(await h.db('deliveries').where({ event_id: messageId })).toEqual([]);
  });

  it('names an event relayed before the log had ids by its message id', async () => {
    const { apiKeyId, userId } = newKey();
    await setWebhook(h.client, apiKeyId, userId, receiver.url());
    const { event_id: _none, ...payload } = jobEventPayload({ api_key_id: apiKeyId, user_id: userId });
    const messageId = randomUUID();
    expect(await publish(h.client, 'completed', payload, messageId)).toBe(messageId);
    await allHandled();

    const [req] = receiver.requests.filter((r) => r.body.includes(payload.job_id));
    expect(req.headers['x-service-event-id']).toBe(messageId);
  });

  it('names failed and cancelled jobs in X-Service-Event and carries their error', async () => {
    const { apiKeyId, userId } = newKey();
    const secret = await setWebhook(h.client, apiKeyId, userId, receiver.url());
    const failed = await publish(
      h.client,
      'failed',
      jobEventPayload({
        api_key_id: apiKeyId,
        user_id: userId,
        status: 'failed',
        result: null,
        error: 'Generation timed out',
      }),
    );
    const cancelled = await publish(
      h.client,
      'cancelled',
      jobEventPayload({ api_key_id: apiKeyId, user_id: userId, status: 'cancelled', result: null }),
    );
    await allHandled();

    const [f] = receiver.forEvent(failed);
    const [c] = receiver.forEvent(cancelled);
    expect(f.headers['x-service-event']).toBe('job.failed');
    expect(JSON.parse(f.body)).toMatchObject({ status: 'failed', result: null, error: 'Generation timed out' });
    expect(c.headers['x-service-event']).toBe('job.cancelled');
    expect(JSON.parse(c.body)).toMatchObject({ status: 'cancelled', result: null });
    expect(verifyWebhookSignature(secret, f.headers, f.body)).toBe(true);
    expect(verifyWebhookSignature(secret, c.headers, c.body)).toBe(true);
  });

  it('sends nothing and acks when the key has no webhook', async () => {
    const { apiKeyId, userId } = newKey();
    const before = receiver.requests.length;
    const ackedBefore = await dispatcher.handled('ack');
    await publish(h.client, 'completed', jobEventPayload({ api_key_id: apiKeyId, user_id: userId }));
    await allHandled();
    expect(await dispatcher.handled('ack')).toBe(ackedBefore + 1);

    expect(receiver.requests.length).toBe(before);
    expect(await h.db('deliveries').where({ api_key_id: apiKeyId }).count<{ count: number }[]>('* as count')).toEqual([
      { count: 0 },
    ]);
    expect(await queueDepth(h.env, QUEUES.webhooksJobEvents)).toBe(0);
    expect(await queueDepth(h.env, deadLetterQueue(QUEUES.webhooksJobEvents))).toBe(0);
  });

  it('delivers an event published twice with one message id (an outbox republish) once', async () => {
    const { apiKeyId, userId } = newKey();
    await setWebhook(h.client, apiKeyId, userId, receiver.url());
    // A slow receiver keeps the first delivery in flight while the copy is consumed.
    receiver.answerDelayMs = 200;
    const payload = jobEventPayload({ api_key_id: apiKeyId, user_id: userId });
    const messageId = randomUUID();
    const eventId = await publish(h.client, 'completed', payload, messageId);
    await publish(h.client, 'completed', payload, messageId);
    await allHandled();

    expect(receiver.forEvent(eventId)).toHaveLength(1);
    const rows = await h.db('deliveries').where({ event_id: eventId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status_code: 200, attempt: 1 });

    // Later, after the first copy is long done, a third copy is dropped as well.
    await publish(h.client, 'completed', payload, messageId);
    await allHandled();
    expect(receiver.forEvent(eventId)).toHaveLength(1);
  });

  it('delivers 200 events published at once, each exactly once', async () => {
    const { apiKeyId, userId } = newKey();
    const secret = await setWebhook(h.client, apiKeyId, userId, receiver.url(`/burst/${apiKeyId}`));
    const eventIds = await Promise.all(
      Array.from({ length: 200 }, () =>
        publish(h.client, 'completed', jobEventPayload({ api_key_id: apiKeyId, user_id: userId })),
      ),
    );
    const burst = () => receiver.requests.filter((r) => r.path === `/burst/${apiKeyId}`);
    await allHandled();

    const perEvent = new Map<string, number>();
    for (const r of burst())
      perEvent.set(
        String(r.headers['x-service-event-id']),
        (perEvent.get(String(r.headers['x-service-event-id'])) ?? 0) + 1,
      );
    expect(perEvent.size).toBe(200);
    expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(eventIds)).toEqual(new Set(perEvent.keys()));
    expect(burst().every((r) => verifyWebhookSignature(secret, r.headers, r.body))).toBe(true);
    const [{ count }] = await h
      .db('deliveries')
      .where({ api_key_id: apiKeyId })
      .whereBetween('status_code', [200, 299])
      .count<{ count: number }[]>('* as count');
    expect(count).toBe(200);
  });
});
