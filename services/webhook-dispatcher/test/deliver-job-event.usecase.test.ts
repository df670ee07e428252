import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDb, migrate, type Knex } from '@mf/db';
import { freshTestEnv, silentLogger, type TestEnv } from '@mf/testing';
import { migrations } from '../migrations';
import { createWebhookPoster, type WebhookPoster } from '../src/delivery/webhook-poster';
import type { PostResult } from '../src/domain/delivery-outcome';
import { SecretBox } from '../src/domain/secret-box';
import { deliverJobEvent, type DeliveryDeps, type JobEventDelivery } from '../src/usecases/deliver-job-event.usecase';
import { KeyedLock } from '../src/usecases/keyed-lock';
import { jobEventPayload } from './support/dispatcher-harness';
import { Receiver } from './support/receiver';
import { verifyWebhookSignature } from './support/verify-signature';
import { createWebhookMetrics } from '../src/webhook-metrics';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';

/** The delivery use case on the real database, without a broker: a fake or real poster, a fixed clock. */
describe('deliverJobEvent', () => {
  let env: TestEnv;
  let db: Knex;
  let receiver: Receiver;
  const secrets = new SecretBox(randomBytes(32));
  const secret = 'whsec_test-secret';
  let nextKey = 1;
  const NOW = 1_750_000_000_123;

  beforeAll(async () => {
    env = await freshTestEnv();
    db = createDb({ url: env.databaseUrl, schema: 'webhooks', poolMax: 5 });
    await migrate(db, 'webhooks', migrations);
    receiver = await Receiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
    await db?.destroy();
    await env?.teardown();
  });

  async function endpointFor(
    url: string,
    box = secrets,
    extra: Record<string, unknown> = {},
  ): Promise<{ apiKeyId: number; userId: number }> {
    const apiKeyId = nextKey++;
    await db('endpoints').insert({
      api_key_id: apiKeyId,
      user_id: 4,
      url,
      secret_ciphertext: box.seal(secret),
      ...extra,
    });
    return { apiKeyId, userId: 4 };
  }

  /** A poster that records what it was asked to send and answers as told. */
  function fakePoster(
    result: PostResult,
  ): WebhookPoster & { calls: { url: string; body: string; headers: Record<string, string> }[] } {
    const calls: { url: string; body: string; headers: Record<string, string> }[] = [];
    return Object.assign(
      async (url: string, body: string, headers: Record<string, string>) => {
        calls.push({ url, body, headers });
        return result;
      },
      { calls },
    );
  }

  /** Shared by every delivery of this file: the counts only grow. */
  const metrics = createWebhookMetrics();
  const attemptCounts = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await metrics.attempts.get()).values.map((v) => [String(v.labels.result), v.value]));
  const deps = (post: WebhookPoster): DeliveryDeps => ({
    db,
    post,
    now: () => NOW,
    secrets,
    logger: silentLogger(),
    lock: new KeyedLock(),
    disableAfterMs: 5 * 24 * 3600 * 1000,
    metrics,
  });
  const delivery = (apiKeyId: number, userId: number, attempt = 1): JobEventDelivery => ({
    event: 'job.completed',
    eventId: randomUUID(),
    attempt,
    payload: jobEventPayload({ api_key_id: apiKeyId, user_id: userId }),
  });
  const rowsOf = (eventId: string) =>
    db('deliveries')
      .where({ event_id: eventId })
      .orderBy('id')
      .select('attempt', 'status_code', 'error', 'duration_ms', 'url');

  it('signs with the clock time and records the attempt', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/a');
    const post = fakePoster({ kind: 'response', status: 202 });
    const d = delivery(apiKeyId, userId, 3);
    expect(await deliverJobEvent(deps(post), d)).toBe('ack');

    expect(post.calls).toHaveLength(1);
    const [call] = post.calls;
    expect(call.url).toBe('https://hooks.example.com/a');
    expect(call.headers['X-Service-Timestamp']).toBe('1750000000');
    expect(call.headers['X-Service-Delivery-Attempt']).toBe('3');
    const lowered = Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhookSignature(secret, lowered, call.body, 1_750_000_000)).toBe(true);
    expect(await rowsOf(d.eventId)).toEqual([
      { attempt: 3, status_code: 202, error: null, duration_ms: 0, url: 'https://hooks.example.com/a' },
    ]);
  });

  it('neither sends nor records an event its endpoint filters out', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/f', secrets, { events: ['job.failed'] });
    const post = fakePoster({ kind: 'response', status: 200 });
    const d = delivery(apiKeyId, userId);
    expect(await deliverJobEvent(deps(post), d)).toBe('ack');
    expect(post.calls).toHaveLength(0);
    expect(await rowsOf(d.eventId)).toEqual([]);

    await db('endpoints')
      .update({ events: ['job.failed', 'job.completed'] })
      .where({ api_key_id: apiKeyId });
    expect(await deliverJobEvent(deps(post), delivery(apiKeyId, userId))).toBe('ack');
    expect(post.calls).toHaveLength(1);
  });

  it('sends a test event (trigger) whatever the filter, marked as a test, once: a failure is recorded, not retried', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/t', secrets, { events: ['job.failed'] });
    const post = fakePoster({ kind: 'response', status: 503 });
    const d = { ...delivery(apiKeyId, userId), payload: { ...delivery(apiKeyId, userId).payload, test: true } };
    expect(await deliverJobEvent(deps(post), d)).toBe('ack');
    expect(post.calls).toHaveLength(1);
    expect(post.calls[0].headers).toMatchObject({ 'X-Service-Test': 'true', 'X-Service-Event': 'job.completed' });
    expect(await db('deliveries').where({ event_id: d.eventId }).select('test', 'status_code', 'succeeded')).toEqual([
      { test: true, status_code: 503, succeeded: false },
    ]);
    // Tests never count towards the endpoint's health.
    expect((await db('endpoints').where({ api_key_id: apiKeyId }).first()).failing_since).toBeNull();
  });

  it('signs with the previous secret too until its overlap ends, verified by stripe under either', async () => {
    const previous = 'whsec_previous-secret';
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/r', secrets, {
      previous_secret_ciphertext: secrets.seal(previous),
      previous_secret_expires_at: new Date(NOW + 1000),
    });
    const post = fakePoster({ kind: 'response', status: 200 });
    await deliverJobEvent(deps(post), delivery(apiKeyId, userId));
    const [call] = post.calls;
    const stripe = new Stripe('sk_test_unused');
    const header = call.headers['X-Service-Signature'];
    expect(header).toMatch(/^t=1750000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    // Stripe's tolerance is checked against its own clock: give it a tolerance that covers our fixed one.
    const tolerance = Math.ceil(Math.abs(Date.now() - NOW) / 1000) + 60;
    for (const key of [secret, previous])
      expect(stripe.webhooks.constructEvent(call.body, header, key, tolerance)).toMatchObject({
        job_id: expect.any(String),
      });

    await db('endpoints')
      .update({ previous_secret_expires_at: new Date(NOW) })
      .where({ api_key_id: apiKeyId });
    await deliverJobEvent(deps(post), delivery(apiKeyId, userId));
    const after = post.calls[1].headers['X-Service-Signature'];
    expect(after.split(',')).toHaveLength(2);
    expect(() => stripe.webhooks.constructEvent(post.calls[1].body, after, previous, tolerance)).toThrow();
  });

  it('signs the standard scheme as standardwebhooks verifies it', async () => {
    const standardSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const apiKeyId = nextKey++;
    await db('endpoints').insert({
      api_key_id: apiKeyId,
      user_id: 4,
      url: 'https://hooks.example.com/s',
      secret_ciphertext: secrets.seal(standardSecret),
      signature_scheme: 'standard',
    });
    const post = fakePoster({ kind: 'response', status: 200 });
    const d = delivery(apiKeyId, 4);
    await deliverJobEvent(deps(post), d);
    const [call] = post.calls;
    expect(call.headers['webhook-id']).toBe(d.eventId);
    expect(call.headers['webhook-timestamp']).toBe('1750000000');
    expect(call.headers['X-Service-Signature']).toBeUndefined();
    // The library checks the timestamp against its clock: verify the signature at our fixed time.
    jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval'] });
    try {
      expect(new Webhook(standardSecret).verify(call.body, call.headers)).toMatchObject({ job_id: expect.any(String) });
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not post again an event already answered with a 2xx', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/b');
    const d = delivery(apiKeyId, userId);
    await deliverJobEvent(deps(fakePoster({ kind: 'response', status: 200 })), d);
    const again = fakePoster({ kind: 'response', status: 200 });
    expect(await deliverJobEvent(deps(again), { ...d, attempt: 2 })).toBe('ack');
    expect(again.calls).toHaveLength(0);
    expect(await rowsOf(d.eventId)).toHaveLength(1);
  });

  it('posts again an event whose earlier attempts failed', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/c');
    const d = delivery(apiKeyId, userId);
    const before = await attemptCounts();
    expect(await deliverJobEvent(deps(fakePoster({ kind: 'response', status: 503 })), d)).toBe('retry');
    expect(await deliverJobEvent(deps(fakePoster({ kind: 'response', status: 200 })), { ...d, attempt: 2 })).toBe(
      'ack',
    );
    expect((await rowsOf(d.eventId)).map((r) => r.status_code)).toEqual([503, 200]);
    // webhook_delivery_attempts_total: one failed, one delivered (what the failure-ratio alert reads).
    const after = await attemptCounts();
    expect([after.failed - (before.failed ?? 0), after.delivered - (before.delivered ?? 0)]).toEqual([1, 1]);
  });

  it('numbers a redelivered event after its recorded attempts (the dispatcher died before scheduling the retry)', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/c2');
    const d = delivery(apiKeyId, userId);
    expect(await deliverJobEvent(deps(fakePoster({ kind: 'response', status: 500 })), d)).toBe('retry');
    // The broker hands the same message back with the same counter: it is the second attempt all the same.
    const again = fakePoster({ kind: 'response', status: 200 });
    expect(await deliverJobEvent(deps(again), d)).toBe('ack');
    expect(again.calls[0].headers['X-Service-Delivery-Attempt']).toBe('2');
    expect((await rowsOf(d.eventId)).map((r) => [r.attempt, r.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });

  it('sends nothing for a key without a webhook, or for an event of another user', async () => {
    const post = fakePoster({ kind: 'response', status: 200 });
    expect(await deliverJobEvent(deps(post), delivery(9_999, 4))).toBe('ack');
    const { apiKeyId } = await endpointFor('https://hooks.example.com/d');
    expect(await deliverJobEvent(deps(post), delivery(apiKeyId, 5))).toBe('ack');
    expect(post.calls).toHaveLength(0);
  });

  it('dead-letters, without posting, when the secret was sealed under another key', async () => {
    const { apiKeyId, userId } = await endpointFor('https://hooks.example.com/e', new SecretBox(randomBytes(32)));
    const post = fakePoster({ kind: 'response', status: 200 });
    const d = delivery(apiKeyId, userId);
    expect(await deliverJobEvent(deps(post), d)).toBe('dead');
    expect(post.calls).toHaveLength(0);
    expect(await rowsOf(d.eventId)).toEqual([]);
  });

  describe('with the real poster', () => {
    const realDeps = (policy: { allowHttp: boolean; allowPrivate: boolean }, timeoutMs = 2000): DeliveryDeps => ({
      ...deps(createWebhookPoster({ policy, timeoutMs })),
      now: () => Date.now(),
    });
    const permissive = { allowHttp: true, allowPrivate: true };

    it('does not follow a redirect, and retries it', async () => {
      const target = await Receiver.start();
      const redirecting = http.createServer((_req, res) =>
        res.writeHead(302, { location: target.url('/elsewhere') }).end(),
      );
      await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hook`;
        const { apiKeyId, userId } = await endpointFor(url);
        const d = delivery(apiKeyId, userId);
        expect(await deliverJobEvent(realDeps(permissive), d)).toBe('retry');
        expect(target.requests).toHaveLength(0);
        expect(await rowsOf(d.eventId)).toEqual([expect.objectContaining({ status_code: 302, error: null })]);
      } finally {
        redirecting.closeAllConnections();
        await new Promise((r) => redirecting.close(r));
        await target.close();
      }
    });

    it('records a private address refused at connect time and does not retry it', async () => {
      const { apiKeyId, userId } = await endpointFor(receiver.url('/private'));
      const d = delivery(apiKeyId, userId);
      expect(await deliverJobEvent(realDeps({ allowHttp: true, allowPrivate: false }), d)).toBe('ack');
      expect(receiver.requests.filter((r) => r.path === '/private')).toHaveLength(0);
      expect(await rowsOf(d.eventId)).toEqual([
        expect.objectContaining({ status_code: null, error: 'refused: private address' }),
      ]);
    });

    it('records plain http refused when http is no longer allowed', async () => {
      const { apiKeyId, userId } = await endpointFor(receiver.url('/plain'));
      const d = delivery(apiKeyId, userId);
      expect(await deliverJobEvent(realDeps({ allowHttp: false, allowPrivate: true }), d)).toBe('ack');
      expect(receiver.requests.filter((r) => r.path === '/plain')).toHaveLength(0);
      expect(await rowsOf(d.eventId)).toEqual([
        expect.objectContaining({ status_code: null, error: 'refused: http not allowed' }),
      ]);
    });

    it('retries a connection refused', async () => {
      const closed = await Receiver.start();
      const url = closed.url('/gone');
      await closed.close();
      const { apiKeyId, userId } = await endpointFor(url);
      const d = delivery(apiKeyId, userId);
      expect(await deliverJobEvent(realDeps(permissive), d)).toBe('retry');
      expect(await rowsOf(d.eventId)).toEqual([
        expect.objectContaining({ status_code: null, error: 'connection refused' }),
      ]);
    });

    it('answers as soon as the status is in, whatever the size of the body', async () => {
      const big = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(64 * 1024));
        // Never ends the body: the delivery must not wait for it.
      });
      await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
      try {
        const { apiKeyId, userId } = await endpointFor(`http://127.0.0.1:${(big.address() as AddressInfo).port}/big`);
        const d = delivery(apiKeyId, userId);
        expect(await deliverJobEvent(realDeps(permissive, 5000), d)).toBe('ack');
        const [row] = await rowsOf(d.eventId);
        expect(row).toMatchObject({ status_code: 200, error: null });
        expect(row.duration_ms).toBeLessThan(4000);
      } finally {
        big.closeAllConnections();
        await new Promise((r) => big.close(r));
      }
    });

    it('counts a 2xx whose body never comes as delivered, within the timeout', async () => {
      const stalling = http.createServer((_req, res) => res.writeHead(200).flushHeaders());
      await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
      try {
        const { apiKeyId, userId } = await endpointFor(
          `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/stall`,
        );
        const d = delivery(apiKeyId, userId);
        expect(await deliverJobEvent(realDeps(permissive, 300), d)).toBe('ack');
        expect(await rowsOf(d.eventId)).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
      } finally {
        stalling.closeAllConnections();
        await new Promise((r) => stalling.close(r));
      }
    });
  });
});
