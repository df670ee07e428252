import { webhookOutboundRpc, webhooksRpc } from '@mf/contracts';
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

/** Recover queues each failed event once, however often and however concurrently it is called. */
describe('webhook recover', () => {
  let h: Harness;
  let dispatcher: RunningDispatcher;
  let receiver: Receiver;
  let nextKey = 1200;
  const user = 12;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
    dispatcher = await h.startDispatcher({ WEBHOOK_RETRY_DELAYS_MS: '60000', WEBHOOK_TIMEOUT_MS: '5000' });
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** A key whose endpoint refused (400: not retried) `n` events; returns them once each attempt is recorded. */
  async function failedEvents(n: number): Promise<{ apiKeyId: number; events: string[]; since: string }> {
    const apiKeyId = nextKey++;
    const path = `/k/${apiKeyId}`;
    await setWebhook(h.client, apiKeyId, user, receiver.url(path));
    const since = new Date(Date.now() - 60_000).toISOString();
    receiver.answer = (req) => (req.path === path ? 400 : 200);
    const events: string[] = [];
    for (let i = 0; i < n; i++)
      events.push(
        await publishJobEvent(h.client, 'completed', jobEventPayload({ api_key_id: apiKeyId, user_id: user })),
      );
    // The attempt is recorded before its pending row is dropped, and recover skips an event still
    // pending: wait for both.
    await waitFor(
      async () =>
        (await h.db('deliveries').where({ api_key_id: apiKeyId })).length === n &&
        (await h.db('pending_attempts').where({ api_key_id: apiKeyId })).length === 0,
      `${n} failed attempts recorded and settled`,
    );
    return { apiKeyId, events, since };
  }

  const recover = (apiKeyId: number, since: string) =>
    h.client.rpc(webhooksRpc, 'recover', { api_key_id: apiKeyId, user_id: user, since });
  const copies = (events: string[]) => events.map((e) => receiver.forEvent(e).length);

  it('queues nothing the second time, though the first call’s resends are still queued or in flight', async () => {
    const { apiKeyId, events, since } = await failedEvents(3);
    // The receiver takes its time: the resends are queued or in flight while recover is called again.
    receiver.answer = () => 200;
    receiver.answerDelayMs = 300;
    const before = await dispatcher.settled('resend');
    try {
      expect(await recover(apiKeyId, since)).toEqual({ queued: 3 });
      expect(await recover(apiKeyId, since)).toEqual({ queued: 0 });
      await waitFor(async () => (await dispatcher.settled('resend')) === before + 3, 'the three resends made');
    } finally {
      receiver.answerDelayMs = 0;
    }
    // Sent again since `since`: not queued again, by this call or any later one.
    expect(await recover(apiKeyId, since)).toEqual({ queued: 0 });
    expect(copies(events)).toEqual([2, 2, 2]);
    const rows = await h.db('deliveries').where({ api_key_id: apiKeyId }).orderBy('id');
    expect(rows.map((r: { attempt: number; resend: boolean }) => [r.attempt, r.resend])).toEqual([
      [1, false],
      [1, false],
      [1, false],
      [2, true],
      [2, true],
      [2, true],
    ]);
  });

  it('queues each event once when calls run at the same time', async () => {
    const { apiKeyId, events, since } = await failedEvents(4);
    receiver.answer = () => 200;
    const before = await dispatcher.settled('resend');
    const answers = await Promise.all(Array.from({ length: 5 }, () => recover(apiKeyId, since)));
    expect(answers.reduce((sum, a) => sum + a.queued, 0)).toBe(4);
    await waitFor(async () => (await dispatcher.settled('resend')) === before + 4, 'the four resends made');
    expect(copies(events)).toEqual([2, 2, 2, 2]);
  });

  it('skips an event resent by hand since `since`, and still queues the others', async () => {
    const { apiKeyId, events, since } = await failedEvents(2);
    receiver.answer = (req) => (req.path === `/k/${apiKeyId}` ? 500 : 200);
    const [first] = await h.db('deliveries').where({ event_id: events[0] });
    const resent = await h.client.rpc(webhookOutboundRpc, 'resendDelivery', {
      api_key_id: apiKeyId,
      user_id: user,
      delivery_id: Number(first.id),
    });
    expect(resent.delivery).toMatchObject({ attempt: 2, succeeded: false });
    receiver.answer = () => 200;
    const before = await dispatcher.settled('resend');
    expect(await recover(apiKeyId, since)).toEqual({ queued: 1 });
    await waitFor(async () => (await dispatcher.settled('resend')) === before + 1, 'the resend made');
    expect(copies(events)).toEqual([2, 2]);
  });
});
