import { resendRequested, webhookOutboundRpc, webhooksRpc } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  setWebhook,
  startHarness,
  waitFor,
  type Harness,
  type RunningDispatcher,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';

/** The delivery log's detail, resend and recover over the real RPC, and the disabling of a failing endpoint. */
describe('webhook delivery tools', () => {
  let h: Harness;
  let dispatcher: RunningDispatcher;
  let receiver: Receiver;
  let nextKey = 900;
  const user = 8;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
    dispatcher = await h.startDispatcher({ WEBHOOK_RETRY_DELAYS_MS: '50,50,50', WEBHOOK_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await receiver?.close();
    await h?.close();
  });
  beforeEach(() => {
    receiver.answer = () => 200;
    receiver.answerBody = 'ok';
  });

  const list = (apiKeyId: number, extra: { status?: 'failed' | 'succeeded'; starting_after?: number } = {}) =>
    h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: apiKeyId, user_id: user, ...extra });

  /** Publishes a job.completed for the key and waits until `attempts` attempts of it are logged. */
  async function deliverEvent(apiKeyId: number, attempts = 1): Promise<string> {
    const eventId = await publishJobEvent(
      h.client,
      'completed',
      jobEventPayload({ api_key_id: apiKeyId, user_id: user }),
    );
    await waitFor(
      async () => (await h.db('deliveries').where({ event_id: eventId })).length === attempts,
      `${attempts} attempt(s) of ${eventId}`,
    );
    return eventId;
  }

  it('records the headers and body sent and the first 4 KB of the answer, and filters the list by outcome', async () => {
    const apiKeyId = nextKey++;
    const secret = await setWebhook(h.client, apiKeyId, user, receiver.url());
    receiver.answerBody = 'x'.repeat(5000);
    const ok = await deliverEvent(apiKeyId);
    receiver.answer = () => 404;
    receiver.answerBody = 'no such hook';
    const refused = await deliverEvent(apiKeyId);

    const { deliveries } = await list(apiKeyId);
    expect(deliveries.map((d) => [d.event_id, d.succeeded])).toEqual([
      [refused, false],
      [ok, true],
    ]);
    expect((await list(apiKeyId, { status: 'failed' })).deliveries.map((d) => d.event_id)).toEqual([refused]);
    expect((await list(apiKeyId, { status: 'succeeded' })).deliveries.map((d) => d.event_id)).toEqual([ok]);
    expect((await list(apiKeyId, { starting_after: deliveries[0].id })).deliveries.map((d) => d.event_id)).toEqual([
      ok,
    ]);

    const detail = await h.client.rpc(webhooksRpc, 'getDelivery', {
      api_key_id: apiKeyId,
      user_id: user,
      delivery_id: deliveries[1].id,
    });
    const sent = receiver.forEvent(ok)[0];
    expect(detail).toMatchObject({ id: deliveries[1].id, event_id: ok, status_code: 200, succeeded: true });
    expect(detail.request_body).toBe(sent.body);
    expect(detail.request_headers).toMatchObject({
      'X-Service-Event-Id': ok,
      'X-Service-Signature': sent.headers['x-service-signature'],
    });
    expect(verifyWebhookSignature(secret, sent.headers, detail.request_body ?? '')).toBe(true);
    expect(detail.response_body).toBe('x'.repeat(4096));
    const failed = await h.client.rpc(webhooksRpc, 'getDelivery', {
      api_key_id: apiKeyId,
      user_id: user,
      delivery_id: deliveries[0].id,
    });
    expect(failed).toMatchObject({ status_code: 404, succeeded: false, response_body: 'no such hook' });
  });

  it("answers 404 for another key's delivery, or another user's", async () => {
    const apiKeyId = nextKey++;
    await setWebhook(h.client, apiKeyId, user, receiver.url());
    await deliverEvent(apiKeyId);
    const [d] = (await list(apiKeyId)).deliveries;
    for (const ref of [
      { api_key_id: apiKeyId + 1000, user_id: user },
      { api_key_id: apiKeyId, user_id: user + 1 },
    ]) {
      await expect(h.client.rpc(webhooksRpc, 'getDelivery', { ...ref, delivery_id: d.id })).rejects.toMatchObject({
        kind: 'not_found',
        body: { error: 'Delivery not found' },
      });
      await expect(
        h.client.rpc(webhookOutboundRpc, 'resendDelivery', { ...ref, delivery_id: d.id }),
      ).rejects.toMatchObject({
        kind: 'not_found',
      });
    }
  });

  it('resends the same event id and body with a fresh signature as the next attempt', async () => {
    const apiKeyId = nextKey++;
    const secret = await setWebhook(h.client, apiKeyId, user, receiver.url());
    receiver.answer = () => 400;
    const eventId = await deliverEvent(apiKeyId);
    const [first] = (await list(apiKeyId)).deliveries;
    receiver.answer = () => 200;

    const { delivery } = await h.client.rpc(webhookOutboundRpc, 'resendDelivery', {
      api_key_id: apiKeyId,
      user_id: user,
      delivery_id: first.id,
    });
    expect(delivery).toMatchObject({ event_id: eventId, attempt: 2, status_code: 200, succeeded: true });
    expect(delivery.id).toBeGreaterThan(first.id);
    const [a, b] = receiver.forEvent(eventId);
    expect(b.body).toBe(a.body);
    expect(b.headers['x-service-delivery-attempt']).toBe('2');
    expect(b.headers['x-service-event']).toBe('job.completed');
    expect(b.headers['x-service-test']).toBeUndefined();
    expect(verifyWebhookSignature(secret, b.headers, b.body)).toBe(true);
    expect((await list(apiKeyId)).deliveries.map((d) => d.id)).toEqual([delivery.id, first.id]);
  });

  it('recovers every event since the given time whose last attempt failed, once, and no other', async () => {
    const apiKeyId = nextKey++;
    await setWebhook(h.client, apiKeyId, user, receiver.url());
    receiver.answer = () => 400;
    const before = await deliverEvent(apiKeyId);
    await h
      .db('deliveries')
      .where({ event_id: before })
      .update({ created_at: new Date(Date.now() - 3600_000) });
    const since = new Date(Date.now() - 60_000).toISOString();
    const failedA = await deliverEvent(apiKeyId);
    const failedB = await deliverEvent(apiKeyId);
    receiver.answer = () => 200;
    const delivered = await deliverEvent(apiKeyId);

    const resent = await dispatcher.settled('resend');
    const { queued } = await h.client.rpc(webhooksRpc, 'recover', { api_key_id: apiKeyId, user_id: user, since });
    expect(queued).toBe(2);
    await waitFor(async () => (await dispatcher.settled('resend', 'sent')) === resent + 2, 'both resends recorded');
    expect(receiver.forEvent(failedA)).toHaveLength(2);
    expect(receiver.forEvent(failedB)).toHaveLength(2);
    // Nothing else follows: the earlier event and the delivered one were not sent again.
    const again = await h.client.rpc(webhooksRpc, 'recover', { api_key_id: apiKeyId, user_id: user, since });
    expect(again.queued).toBe(0);
    expect(receiver.forEvent(before)).toHaveLength(1);
    expect(receiver.forEvent(delivered)).toHaveLength(1);
    expect(receiver.forEvent(failedA)[1].headers['x-service-delivery-attempt']).toBe('2');
  });

  it('sends a queued resend once, even when the request arrives twice', async () => {
    const apiKeyId = nextKey++;
    await setWebhook(h.client, apiKeyId, user, receiver.url());
    receiver.answer = () => 400;
    const eventId = await deliverEvent(apiKeyId);
    const [failed] = (await list(apiKeyId)).deliveries;
    receiver.answer = () => 200;
    const before = await dispatcher.settled('resend');
    const request = { api_key_id: apiKeyId, user_id: user, delivery_id: failed.id };
    // Two copies on the broker's resend queue, as a redelivery after a crash would bring.
    await h.client.publishEvent(resendRequested, request);
    await h.client.publishEvent(resendRequested, request);
    await waitFor(async () => (await dispatcher.settled('resend')) === before + 2, 'both copies run in the lane');
    expect(await dispatcher.settled('resend', 'skipped')).toBeGreaterThanOrEqual(1);
    expect(receiver.forEvent(eventId)).toHaveLength(2);
    expect((await list(apiKeyId)).deliveries.map((d) => [d.attempt, d.succeeded])).toEqual([
      [2, true],
      [1, false],
    ]);
  });

  it('disables an endpoint failing without a break for the set time; saving its URL again enables it', async () => {
    const shortDisable = await h.startDispatcher({
      WEBHOOK_RETRY_DELAYS_MS: '50,50,50',
      WEBHOOK_DISABLE_AFTER_MS: '1',
    });
    await dispatcher.close();
    try {
      const apiKeyId = nextKey++;
      await setWebhook(h.client, apiKeyId, user, receiver.url());
      receiver.answer = () => 503;
      // The first failure opens the run of failures; the retry 50 ms later is past the limit and disables it.
      const failing = await deliverEvent(apiKeyId, 2);
      const view = await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: user });
      expect(view.disabled_at).toEqual(expect.any(String));
      expect(view.failing_since).toEqual(expect.any(String));

      receiver.answer = () => 200;
      // This dispatcher has made the two attempts; the next event is the third message it takes off the broker.
      await waitFor(async () => (await shortDisable.settled('event')) === 2, 'both attempts run');
      expect(await shortDisable.handled()).toBe(2);
      const skipped = await publishJobEvent(
        h.client,
        'completed',
        jobEventPayload({ api_key_id: apiKeyId, user_id: user }),
      );
      await waitFor(async () => (await shortDisable.handled()) === 3, 'the next event handled');
      expect(receiver.forEvent(skipped)).toHaveLength(0);
      expect(receiver.forEvent(failing)).toHaveLength(2);
      await expect(
        h.client.rpc(webhooksRpc, 'recover', { api_key_id: apiKeyId, user_id: user, since: new Date(0).toISOString() }),
      ).rejects.toMatchObject({ kind: 'conflict' });

      await h.client.rpc(webhookOutboundRpc, 'setEndpoint', {
        api_key_id: apiKeyId,
        user_id: user,
        url: receiver.url(),
      });
      expect(await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: apiKeyId, user_id: user })).toMatchObject({
        disabled_at: null,
        failing_since: null,
      });
      const after = await deliverEvent(apiKeyId);
      expect(receiver.forEvent(after)).toHaveLength(1);
    } finally {
      await shortDisable.close();
      dispatcher = await h.startDispatcher({ WEBHOOK_RETRY_DELAYS_MS: '50,50,50', WEBHOOK_TIMEOUT_MS: '2000' });
    }
  });
});
