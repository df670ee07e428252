import { randomUUID } from 'node:crypto';
import { deadLetterQueue, QUEUES, webhooksRpc } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  setWebhook,
  sleep,
  startHarness,
  waitFor,
  withBrokerChannel,
  type Harness,
  type RunningDispatcher,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';

const DELAYS = [300, 600, 900];

/** The contract's delivery rules with the retry schedule shortened to DELAYS and a 500 ms timeout. */
describe('webhook retries', () => {
  let h: Harness;
  let dispatcher: RunningDispatcher;
  let receiver: Receiver;
  let nextKey = 200;

  beforeAll(async () => {
    h = await startHarness();
    dispatcher = await h.startDispatcher({ WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','), WEBHOOK_TIMEOUT_MS: '500' });
    receiver = await Receiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** A key whose webhook answers as scripted, one event published to it; returns what to look at. */
  async function deliverWith(answers: (number | 'hang')[]) {
    const apiKeyId = nextKey++;
    const userId = 9;
    const path = `/k/${apiKeyId}`;
    const secret = await setWebhook(h.client, apiKeyId, userId, receiver.url(path));
    let n = 0;
    const previous = receiver.answer;
    receiver.answer = (req, i) => (req.path === path ? (answers[n++] ?? 200) : previous(req, i));
    const handledBefore = await dispatcher.settled('event');
    const messageId = randomUUID();
    const eventId = await publishJobEvent(
      h.client,
      'completed',
      jobEventPayload({ api_key_id: apiKeyId, user_id: userId }),
      messageId,
    );
    return { apiKeyId, userId, secret, eventId, messageId, handledBefore, requests: () => receiver.forEvent(eventId) };
  }

  const attemptsOf = (requests: { headers: Record<string, unknown> }[]) =>
    requests.map((r) => Number(r.headers['x-service-delivery-attempt']));

  it('retries a 500 after the first delay and stops at the 200', async () => {
    const d = await deliverWith([500, 200]);
    await waitFor(
      async () => (await dispatcher.settled('event')) === d.handledBefore + 2,
      'two attempts to be handled',
    );
    await sleep(DELAYS[1] + 300); // time enough for a third attempt, if one were wrongly scheduled

    const requests = d.requests();
    expect(attemptsOf(requests)).toEqual([1, 2]);
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(DELAYS[0] - 20);
    // Each attempt is signed afresh and verifies on its own.
    expect(requests.every((r) => verifyWebhookSignature(d.secret, r.headers, r.body))).toBe(true);

    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
    });
    expect(deliveries.map((x) => [x.attempt, x.status_code, x.error])).toEqual([
      [2, 200, null],
      [1, 500, null],
    ]);
    expect(deliveries[0].id).toBeGreaterThan(deliveries[1].id);
    const newest = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
      limit: 1,
    });
    expect(newest.deliveries.map((x) => x.attempt)).toEqual([2]);
  });

  it('does not retry a 400', async () => {
    const d = await deliverWith([400]);
    await waitFor(async () => (await dispatcher.settled('event')) === d.handledBefore + 1, 'the attempt to be handled');
    await sleep(DELAYS[0] + 300);

    expect(attemptsOf(d.requests())).toEqual([1]);
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
    });
    expect(deliveries.map((x) => [x.attempt, x.status_code])).toEqual([[1, 400]]);
  });

  it('retries a 429 and a 408', async () => {
    const d = await deliverWith([429, 408, 204]);
    await waitFor(
      async () => (await dispatcher.settled('event')) === d.handledBefore + 3,
      'three attempts to be handled',
    );

    expect(attemptsOf(d.requests())).toEqual([1, 2, 3]);
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
    });
    expect(deliveries.map((x) => [x.attempt, x.status_code])).toEqual([
      [3, 204],
      [2, 408],
      [1, 429],
    ]);
  });

  it('retries a receiver that never answers, after the timeout', async () => {
    const d = await deliverWith(['hang', 200]);
    await waitFor(
      async () => (await dispatcher.settled('event')) === d.handledBefore + 2,
      'two attempts to be handled',
    );

    expect(attemptsOf(d.requests())).toEqual([1, 2]);
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
    });
    expect(deliveries.map((x) => [x.attempt, x.status_code, x.error])).toEqual([
      [2, 200, null],
      [1, null, 'timeout'],
    ]);
    // The timeout ended the attempt: generously bounded on both sides.
    expect(deliveries[1].duration_ms).toBeGreaterThanOrEqual(450);
    expect(deliveries[1].duration_ms).toBeLessThan(5000);
  });

  it('makes 1 + 3 attempts at a receiver that keeps failing, then dead-letters the event', async () => {
    const d = await deliverWith([503, 503, 503, 503, 200]);
    await waitFor(
      async () => (await dispatcher.settled('event', 'dead-lettered')) >= 1,
      'the event to be dead-lettered',
    );
    await sleep(500);

    expect(attemptsOf(d.requests())).toEqual([1, 2, 3, 4]);
    const { deliveries } = await h.client.rpc(webhooksRpc, 'listDeliveries', {
      api_key_id: d.apiKeyId,
      user_id: d.userId,
    });
    expect(deliveries.map((x) => [x.attempt, x.status_code])).toEqual([
      [4, 503],
      [3, 503],
      [2, 503],
      [1, 503],
    ]);
    const dead = await withBrokerChannel(h.env, async (ch) => {
      const msg = await ch.get(deadLetterQueue(QUEUES.webhooksJobEvents), { noAck: true });
      return msg === false
        ? null
        : { messageId: msg.properties.messageId as string, attempt: msg.properties.headers?.['x-attempt'] };
    });
    expect(dead).toEqual({ messageId: d.messageId, attempt: 4 });
  });
});
