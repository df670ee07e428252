import { deadLetterQueue, delayQueue, QUEUES } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  queueDepth,
  setWebhook,
  sleep,
  startHarness,
  waitFor,
  type Harness,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';

const DELAY_MS = 1500;

/** The retry schedule lives in the broker, so a dispatcher restart neither loses nor repeats a retry. */
describe('webhook retries across a dispatcher restart', () => {
  let h: Harness;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('delivers a retry that waited in the delay queue exactly once, by the next dispatcher', async () => {
    const config = { WEBHOOK_RETRY_DELAYS_MS: String(DELAY_MS) };
    const first = await h.startDispatcher(config);
    await setWebhook(h.client, 1, 1, receiver.url());
    receiver.answer = (_req, n) => (n === 1 ? 500 : 200);
    const eventId = await publishJobEvent(h.client, 'completed', jobEventPayload({ api_key_id: 1, user_id: 1 }));

    await waitFor(
      async () => (await first.settled('event', 'scheduled')) === 1,
      'the first attempt to schedule a retry',
    );
    await first.close();
    // The retry is held by the broker while no dispatcher runs.
    expect(await queueDepth(h.env, delayQueue(QUEUES.webhooksJobEvents, DELAY_MS))).toBe(1);
    expect(receiver.forEvent(eventId)).toHaveLength(1);

    const second = await h.startDispatcher(config);
    await waitFor(async () => (await second.settled('event', 'ack')) === 1, 'the retry to be delivered');
    await sleep(DELAY_MS + 500); // long enough for any stray second copy to surface

    expect(receiver.forEvent(eventId).map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2']);
    expect(
      await h.db('deliveries').where({ event_id: eventId }).orderBy('id').select('attempt', 'status_code'),
    ).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
    expect(await queueDepth(h.env, delayQueue(QUEUES.webhooksJobEvents, DELAY_MS))).toBe(0);
    expect(await queueDepth(h.env, QUEUES.webhooksJobEvents)).toBe(0);
    expect(await queueDepth(h.env, deadLetterQueue(QUEUES.webhooksJobEvents))).toBe(0);
  });
});
