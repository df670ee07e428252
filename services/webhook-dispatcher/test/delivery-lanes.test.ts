import { QUEUES } from '@mf/contracts';
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

const CAP = 2;
const PREFETCH = 5;

/**
 * Per-endpoint lanes: an endpoint that never answers holds its own cap of attempts and nothing
 * else: not the broker's prefetch, not another endpoint's deliveries, not another replica's room.
 */
describe('webhook delivery lanes', () => {
  let h: Harness;
  let receiver: Receiver;
  let first: RunningDispatcher;
  const user = 4;
  const hanging = { apiKeyId: 31, path: '/hang' };
  const config = {
    // Long enough that no hanging attempt ends while a test looks.
    WEBHOOK_TIMEOUT_MS: '60000',
    WEBHOOK_RETRY_DELAYS_MS: '60000',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
    WEBHOOK_PREFETCH: String(PREFETCH),
  };

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
    receiver.answer = (req) => (req.path === hanging.path ? 'hang' : 200);
    first = await h.startDispatcher(config);
    await setWebhook(h.client, hanging.apiKeyId, user, receiver.url(hanging.path));
  });
  afterAll(async () => {
    // Dropping the hanging connections ends the attempts still waiting on them.
    await receiver?.close();
    await h?.close();
  });

  const atHanging = () => receiver.requests.filter((r) => r.path === hanging.path).length;
  const recorded = async (apiKeyId: number) => (await h.db('deliveries').where({ api_key_id: apiKeyId })).length;
  const publishFor = (apiKeyId: number) =>
    publishJobEvent(h.client, 'completed', jobEventPayload({ api_key_id: apiKeyId, user_id: user }));

  it("takes every event off the broker and delivers another endpoint's at once while one endpoint hangs", async () => {
    for (let i = 0; i < 6 * PREFETCH; i++) await publishFor(hanging.apiKeyId);
    // All of them consumed though the prefetch is 5: they wait in the hanging endpoint's lane, not unacked.
    await waitFor(
      async () => (await first.handled()) === 6 * PREFETCH && atHanging() === CAP,
      'every event consumed and the lane full',
    );
    expect(await queueDepth(h.env, QUEUES.webhooksJobEvents)).toBe(0);

    const other = 32;
    await setWebhook(h.client, other, user, receiver.url('/ok'));
    const eventId = await publishFor(other);
    await waitFor(async () => (await recorded(other)) === 1, "the other endpoint's delivery recorded");

    // Delivered while the hanging endpoint's attempts are all still open: it waited for none of them.
    expect(await recorded(hanging.apiKeyId)).toBe(0);
    expect(atHanging()).toBe(CAP);
    expect(receiver.forEvent(eventId)).toHaveLength(1);
    expect(
      await h.db('pending_attempts').where({ api_key_id: hanging.apiKeyId }).count<{ n: number }[]>('* as n'),
    ).toEqual([{ n: 6 * PREFETCH }]);
  });

  it('keeps the endpoint to its cap across replicas, while the second replica delivers for others', async () => {
    const second = await h.startDispatcher(config);
    const others = [33, 34, 35, 36];
    for (const key of others) await setWebhook(h.client, key, user, receiver.url(`/ok/${key}`));
    const settledBefore = await second.settled('event');
    for (const key of others) for (let i = 0; i < 3; i++) await publishFor(key);
    // The second replica has claimed from the lanes (and so has seen the hanging one's waiting attempts).
    await waitFor(async () => (await second.settled('event')) > settledBefore, 'the second replica to deliver');
    await waitFor(
      async () => (await Promise.all(others.map(recorded))).every((n) => n === 3),
      "the other endpoints' deliveries",
    );
    expect(atHanging()).toBe(CAP);
    expect(await recorded(hanging.apiKeyId)).toBe(0);
  });
});
