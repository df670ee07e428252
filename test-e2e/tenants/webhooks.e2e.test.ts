import { api, startFleet, userWithKey, type Fleet, type TestUser } from '../support/fleet';
import { until, waitForJob } from '../support/jobs';
import { LOOPBACK_DELIVERY, startReceiver } from '../support/webhook-receiver';

/** The acceptance figures for another tenant while one tenant's endpoint never answers. */
const LIST_WITHIN_MS = 1500;
const TEST_WITHIN_MS = 3000;
const DELIVERY_WITHIN_MS = 3000;
const CAP = 4; // WEBHOOK_ENDPOINT_CONCURRENCY's default

/**
 * Tenant isolation of webhooks through the real fleet: tenant A's endpoint never answers while A
 * owes it 25 job deliveries and fires 25 test events at it; tenant B's reads, test event and job
 * delivery are answered as if A were not there.
 */
describe('webhooks: one tenant’s hanging endpoint and another tenant', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    // Production's time limits (10 s an attempt, 15 s for a test's caller): A's attempts hang for all of it.
    fleet = await startFleet({
      RATE_LIMIT_PER_MINUTE: '100000',
      ...LOOPBACK_DELIVERY,
      WEBHOOK_RETRY_DELAYS_MS: '60000',
    });
  });
  afterAll(async () => {
    await fleet?.shutdown();
  });

  const submitImage = async (u: TestUser, prompt: string): Promise<string> => {
    const res = await api(fleet, 'POST', '/api/v1/image/imagegen/generate', { key: u.key, body: { prompt } });
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };

  it('answers B’s delivery list, test event and job delivery within the issue’s bounds while A’s endpoint hangs', async () => {
    const hanging = await startReceiver(() => 'hang');
    const fine = await startReceiver();
    try {
      const a = await userWithKey(fleet, 'all', 1_000_000);
      const b = await userWithKey(fleet, 'all', 1_000_000);
      await fleet.admin('webhook:set', '--key-id', String(a.keyId), '--url', hanging.url);
      await fleet.admin('webhook:set', '--key-id', String(b.keyId), '--url', fine.url);
      const tests = () => hanging.received.filter((r) => r.headers['x-service-test'] === 'true').length;
      const deliveries = () => hanging.received.length - tests();

      // A owes its endpoint 25 job deliveries: the lane holds CAP of them open, the rest wait.
      const aJobs: string[] = [];
      for (let i = 0; i < 25; i++) aJobs.push(await submitImage(a, `tenant a ${i}`));
      for (const id of aJobs) await waitForJob(fleet, a.key, id);
      await until('A’s lane full', () => deliveries() >= CAP);

      // And fires 25 test events at it at once.
      const aTests = Array.from({ length: 25 }, () =>
        api(fleet, 'POST', '/api/v1/webhook/test', { key: a.key, body: { type: 'job.completed' } }).then((res) => ({
          ...res,
          answeredAt: Date.now(),
        })),
      );
      await until('A’s test slots full', () => tests() >= CAP);

      let started = Date.now();
      const list = await api(fleet, 'GET', '/api/v1/webhook/deliveries', { key: b.key });
      const listMs = Date.now() - started;
      expect(list.status).toBe(200);

      started = Date.now();
      const test = await api(fleet, 'POST', '/api/v1/webhook/test', { key: b.key, body: { type: 'job.completed' } });
      const testAnsweredAt = Date.now();
      const testMs = testAnsweredAt - started;
      expect(test).toMatchObject({ status: 200, body: { delivery: { status_code: 200, test: true } } });

      const bJob = await waitForJob(fleet, b.key, await submitImage(b, 'tenant b'));
      expect(bJob.status).toBe('completed');
      await until('B’s job.completed', () =>
        fine.received.some(
          (r) => r.headers['x-service-event'] === 'job.completed' && r.headers['x-service-test'] !== 'true',
        ),
      );
      const hook = fine.received.find((r) => r.headers['x-service-test'] !== 'true')!;
      expect(JSON.parse(hook.rawBody).job_id).toBe(bJob.job_id);
      const deliveryMs = hook.receivedAt - Date.parse(bJob.completed_at);

      // All of it while A still owed its endpoint most of its deliveries.
      const aLog = await api(fleet, 'GET', '/api/v1/webhook/deliveries?limit=100', { key: a.key });
      expect(aLog.body.deliveries.filter((d: { test: boolean }) => !d.test).length).toBeLessThan(aJobs.length);
      expect(listMs).toBeLessThan(LIST_WITHIN_MS);
      expect(testMs).toBeLessThan(TEST_WITHIN_MS);
      expect(deliveryMs).toBeLessThan(DELIVERY_WITHIN_MS);

      // A's own tests: each answered one was sent (its attempt ended in a timeout, after B's test was
      // answered); each refused one (it could not start in time for its caller) was never sent.
      const answers = await Promise.all(aTests);
      const sent = answers.filter((r) => r.status === 200);
      expect(answers.every((r) => r.status === 200 || r.status === 503)).toBe(true);
      expect(sent.length).toBeGreaterThanOrEqual(CAP);
      expect(sent.every((r) => r.body.delivery.error === 'timeout' && r.answeredAt > testAnsweredAt)).toBe(true);
      expect(tests()).toBe(sent.length);
    } finally {
      await hanging.close();
      await fine.close();
    }
  });
});
