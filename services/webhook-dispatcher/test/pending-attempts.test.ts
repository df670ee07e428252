import type { HeldMessage } from '@mf/bus';
import {
  claimAttempts,
  queueEventAttempt,
  releaseClaims,
  removeAttempt,
  renewClaims,
} from '../src/repositories/pending-attempts.repository';
import { nextEventId, startHarness, waitFor, type Harness } from './support/dispatcher-harness';

/** The lanes' bookkeeping in Postgres: who may claim what, fleet-wide. */
describe('pending attempts', () => {
  let h: Harness;
  let nextKey = 5000;
  const user = 3;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(async () => {
    await h.db('pending_attempts').delete();
  });

  const held = (eventId: string, attempt = 1): HeldMessage => ({
    queue: 'webhooks.job-event.deliver',
    routingKey: 'job.completed',
    content: '{}',
    attempt,
    messageId: eventId,
    headers: {},
  });

  /** A key with an enabled endpoint and `n` events queued for it; returns the event ids. */
  async function laneWith(n: number, apiKeyId = nextKey++): Promise<{ apiKeyId: number; events: string[] }> {
    await h
      .db('endpoints')
      .insert({ api_key_id: apiKeyId, user_id: user, url: 'http://127.0.0.1:9/h', secret_ciphertext: 'x' });
    const events: string[] = [];
    for (let i = 0; i < n; i++) {
      const eventId = nextEventId();
      expect(
        await queueEventAttempt(h.db, { apiKeyId, userId: user, eventId, attempt: 1, message: held(eventId) }),
      ).toBe(true);
      events.push(eventId);
    }
    return { apiKeyId, events };
  }

  const claim = (replica: string, limit: number, cap = 2, leaseMs = 60_000) =>
    claimAttempts(h.db, { replica, cap, limit, leaseMs });

  it('queues an attempt only for an enabled endpoint of that user, and a redelivered copy once', async () => {
    const { apiKeyId, events } = await laneWith(1);
    const copy = { apiKeyId, userId: user, eventId: events[0], attempt: 1, message: held(events[0]) };
    expect(await queueEventAttempt(h.db, copy)).toBe(false);
    // The retry of the same event is a new attempt, queued behind.
    expect(await queueEventAttempt(h.db, { ...copy, attempt: 2, message: held(events[0], 2) })).toBe(true);
    expect(await queueEventAttempt(h.db, { ...copy, userId: user + 1, eventId: nextEventId() })).toBe(false);
    expect(await queueEventAttempt(h.db, { ...copy, apiKeyId: nextKey++, eventId: nextEventId() })).toBe(false);
    await h.db('endpoints').where({ api_key_id: apiKeyId }).update({ disabled_at: new Date() });
    expect(await queueEventAttempt(h.db, { ...copy, eventId: nextEventId() })).toBe(false);
  });

  it('holds each endpoint to its cap across replicas, in arrival order, serving lanes round-robin', async () => {
    const slow = await laneWith(6);
    const other = await laneWith(3);
    const first = await claim('replica-a', 3);
    // One of each lane's first before any lane's second.
    expect(first.map((c) => c.event_id)).toEqual([slow.events[0], other.events[0], slow.events[1]]);
    const second = await claim('replica-b', 100);
    // The slow lane is at its cap of 2, held by replica-a: replica-b gets only the other lane's.
    expect(second.map((c) => c.event_id)).toEqual([other.events[1]]);
    expect(await claim('replica-b', 100)).toEqual([]);

    await removeAttempt(h.db, first[0].id);
    expect((await claim('replica-b', 100)).map((c) => c.event_id)).toEqual([slow.events[2]]);
  });

  it('claims one attempt of an event at a time', async () => {
    const { apiKeyId, events } = await laneWith(1);
    await queueEventAttempt(h.db, {
      apiKeyId,
      userId: user,
      eventId: events[0],
      attempt: 2,
      message: held(events[0], 2),
    });
    const [a] = await claim('replica-a', 10, 4);
    expect(await claim('replica-b', 10, 4)).toEqual([]);
    await removeAttempt(h.db, a.id);
    expect((await claim('replica-b', 10, 4)).map((c) => c.attempt)).toEqual([2]);
  });

  it("gives a replica's attempts to another once its lease runs out, unless it renews the lease", async () => {
    const { events } = await laneWith(2);
    const dead = await claim('dead-replica', 1, 2, 300);
    const alive = await claim('live-replica', 1, 2, 300);
    expect([dead[0].event_id, alive[0].event_id]).toEqual(events);
    const renewing = setInterval(() => void renewClaims(h.db, 'live-replica', 300), 50);
    try {
      // The dead replica's attempt comes back, and only that one.
      let taken: string[] = [];
      await waitFor(async () => {
        taken = (await claim('next-replica', 10)).map((c) => c.event_id);
        return taken.length > 0;
      }, "the dead replica's attempt");
      expect(taken).toEqual([events[0]]);
    } finally {
      clearInterval(renewing);
    }
    await releaseClaims(h.db, 'live-replica');
    expect((await claim('next-replica', 10)).map((c) => c.event_id)).toEqual([events[1]]);
  });
});
