import { webhookOutboundRpc, webhooksRpc } from '@mf/contracts';
import {
  jobEventPayload,
  publishJobEvent,
  setWebhook,
  startHarness,
  waitFor,
  type Harness,
} from './support/dispatcher-harness';
import { Receiver } from './support/receiver';

const CAP = 2;
const ATTEMPT_MS = 4000;

/**
 * Test events and resends POST while their caller waits: they wait only for their own endpoint's
 * earlier sends, never hold what reads are answered with, and are never carried out after their
 * caller gave up.
 */
describe('webhook calls that reach out to the endpoint', () => {
  let h: Harness;
  let receiver: Receiver;
  const user = 6;
  let nextKey = 60;

  beforeAll(async () => {
    h = await startHarness();
    receiver = await Receiver.start();
    receiver.answer = (req) => (req.path.startsWith('/hang') ? 'hang' : 200);
    await h.startDispatcher({
      WEBHOOK_TIMEOUT_MS: String(ATTEMPT_MS),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
      WEBHOOK_RETRY_DELAYS_MS: '60000',
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  const at = (path: string) => receiver.requests.filter((r) => r.path === path).length;
  const sendTest = (apiKeyId: number, timeoutMs = 15_000) =>
    h.client.rpc(webhookOutboundRpc, 'sendTest', { api_key_id: apiKeyId, user_id: user }, { timeoutMs });

  it("answers another key's reads and test events while one key's tests hang, twenty-five at once", async () => {
    const slow = nextKey++;
    await setWebhook(h.client, slow, user, receiver.url('/hang/a'));
    const settled: string[] = [];
    const hanging = Array.from({ length: 25 }, () =>
      sendTest(slow).then(
        () => settled.push('answered'),
        (err: { kind?: string }) => settled.push(String(err.kind)),
      ),
    );
    await waitFor(() => at('/hang/a') === CAP, "the slow key's first tests to reach it");

    const other = nextKey++;
    await setWebhook(h.client, other, user, receiver.url('/fine'));
    const test = await sendTest(other);
    const list = await h.client.rpc(webhooksRpc, 'listDeliveries', { api_key_id: other, user_id: user });
    const endpoint = await h.client.rpc(webhooksRpc, 'getEndpoint', { api_key_id: slow, user_id: user });

    // All answered while every one of the slow key's tests was still waiting or hanging.
    expect(settled).toEqual([]);
    expect(test.delivery).toMatchObject({ status_code: 200, test: true });
    expect(list.deliveries.map((d) => d.id)).toEqual([test.delivery.id]);
    expect(endpoint.url).toBe(receiver.url('/hang/a'));
    await Promise.all(hanging);
    // Each answered test was sent, each refused one (it could not start in time) never was.
    expect(settled.filter((s) => s === 'unavailable').length).toBeGreaterThan(0);
    expect(at('/hang/a')).toBe(settled.filter((s) => s === 'answered').length);
  });

  it('answers 503, having sent nothing, a test or resend that cannot end before its caller gives up; none is sent later', async () => {
    const apiKeyId = nextKey++;
    await setWebhook(h.client, apiKeyId, user, receiver.url('/hang/b'));
    // A failed delivery to resend later.
    const eventId = await publishJobEvent(
      h.client,
      'completed',
      jobEventPayload({ api_key_id: apiKeyId, user_id: user }),
    );
    await waitFor(async () => (await h.db('deliveries').where({ event_id: eventId })).length === 1, 'the attempt');
    const [failed] = await h.db('deliveries').where({ event_id: eventId });
    const sentBefore = at('/hang/b');

    // The key's slots hang for 4 s; a caller who waits 7 s needs its 4 s attempt started within 1 s.
    const holding = [sendTest(apiKeyId), sendTest(apiKeyId)];
    await waitFor(() => at('/hang/b') === sentBefore + CAP, 'both slots taken');
    const ref = { api_key_id: apiKeyId, user_id: user, delivery_id: Number(failed.id) };
    const refused = await Promise.allSettled([
      sendTest(apiKeyId, 7000),
      h.client.rpc(webhookOutboundRpc, 'resendDelivery', ref, { timeoutMs: 7000 }),
    ]);
    expect(refused.map((r) => (r.status === 'rejected' ? (r.reason as { kind?: string }).kind : r.status))).toEqual([
      'unavailable',
      'unavailable',
    ]);
    await Promise.all(holding);

    // Slots free again: a new test goes out next; the refused two never do.
    receiver.answer = (req) => (req.path === '/hang/b' ? 200 : req.path.startsWith('/hang') ? 'hang' : 200);
    await expect(sendTest(apiKeyId)).resolves.toMatchObject({ delivery: { status_code: 200 } });
    expect(at('/hang/b')).toBe(sentBefore + CAP + 1);
    expect(receiver.forEvent(eventId)).toHaveLength(1);
  });
});
