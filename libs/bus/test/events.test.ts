import {
  deadLetterQueue,
  delayQueue,
  EXCHANGES,
  jobEvents,
  QUEUES,
  ROUTING_KEYS,
  type Envelope,
  type JobEventPayload,
} from '@mf/contracts';
import { type Bus, type ConsumerContext, type HandlerOutcome } from '../src';
import { encode, envelope } from '../src/codec';
import {
  deferred,
  drainQueue,
  eventually,
  jobCompleted,
  rawConnection,
  sleep,
  TEST_TIMEOUT_MS,
  useVhostAndBuses,
} from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

type Handle = (payload: JobEventPayload, ctx: ConsumerContext) => Promise<HandlerOutcome>;

describe('Bus events', () => {
  const { vhost: currentVhost, pool } = useVhostAndBuses();
  let queueNo = 0;

  /** A started consumer bus on a queue of its own, bound to every job event. */
  async function consumer(
    handle: Handle,
    opts: { queue?: string; retryDelaysMs?: number[]; prefetch?: number } = {},
  ): Promise<{ bus: Bus; queue: string }> {
    const queue = opts.queue ?? `test.events.${++queueNo}`;
    const bus = pool.create('webhooks');
    void bus.consume({
      queue,
      bindings: [ROUTING_KEYS.jobAll],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: { def: jobEvents.completed, handle },
        [ROUTING_KEYS.jobFailed]: { def: jobEvents.failed, handle },
      },
      retryDelaysMs: opts.retryDelaysMs,
      prefetch: opts.prefetch,
    });
    await bus.start(); // declares, binds and starts consuming before resolving
    return { bus, queue };
  }

  async function publisher(): Promise<Bus> {
    const bus = pool.create('jobs');
    await bus.start();
    return bus;
  }

  it('delivers a published event to the handler bound to its routing key, with its envelope', async () => {
    const received: { payload: JobEventPayload; ctx: ConsumerContext }[] = [];
    await consumer(
      async (payload, ctx) => {
        received.push({ payload, ctx });
        return 'ack';
      },
      { queue: QUEUES.webhooksJobEvents },
    );
    const jobs = await publisher();
    const payload = jobCompleted();

    await jobs.publishEvent(jobEvents.completed, payload, { messageId: 'msg-1', correlationId: 'req-1' });

    await eventually('the event to be handled', () => received.length === 1);
    const [{ payload: got, ctx }] = received;
    expect(got).toEqual(payload);
    expect(ctx.attempt).toBe(1);
    expect(ctx.envelope).toMatchObject({
      type: 'job.completed',
      version: 1,
      messageId: 'msg-1',
      correlationId: 'req-1',
      payload,
    });
    expect(Number.isNaN(Date.parse(ctx.envelope.occurredAt))).toBe(false);
  });

  it('routes each event type to its own handler and leaves the queue empty once all are acked', async () => {
    const received: string[] = [];
    const { queue } = await consumer(async (payload, ctx) => {
      received.push(`${ctx.envelope.type}:${payload.job_id}`);
      return 'ack';
    });
    const jobs = await publisher();

    await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'a' }));
    await jobs.publishEvent(
      jobEvents.failed,
      jobCompleted({ job_id: 'b', status: 'failed', result: null, error: 'upstream failed' }),
    );

    await eventually('both events to be handled', () => received.length === 2);
    expect(received.sort()).toEqual(['job.completed:a', 'job.failed:b']);
    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      expect((await ch.checkQueue(queue)).messageCount).toBe(0);
      expect((await ch.checkQueue(deadLetterQueue(queue))).messageCount).toBe(0);
    } finally {
      await conn.close();
    }
  });

  it('dead-letters poison messages (bad payload, bad envelope, not JSON, no handler) without calling the handler', async () => {
    const handled: string[] = [];
    const { queue } = await consumer(async (payload) => {
      handled.push(payload.job_id);
      return 'ack';
    });
    const jobs = await publisher();
    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      // 1. A valid envelope whose payload breaks the contract (credits_consumed must be an integer >= 0).
      const badPayload = {
        ...jobCompleted({ job_id: 'bad-payload' }),
        credits_consumed: 'lots',
      } as unknown as JobEventPayload;
      await jobs.publishEvent(jobEvents.completed, badPayload);
      // 2. JSON that is not an envelope.
      const notEnvelope = Buffer.from(
        JSON.stringify({ hello: 'world', payload: jobCompleted({ job_id: 'no-envelope' }) }),
      );
      ch.publish(EXCHANGES.events, ROUTING_KEYS.jobCompleted, notEnvelope, { persistent: true });
      // 3. Not JSON at all.
      ch.publish(EXCHANGES.events, ROUTING_KEYS.jobCompleted, Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x7b]), {
        persistent: true,
      });
      // 4. A well-formed event this consumer has no handler for.
      ch.publish(
        EXCHANGES.events,
        ROUTING_KEYS.jobCancelled,
        encode(envelope('job.cancelled', 1, jobCompleted({ job_id: 'no-handler' }))),
        { persistent: true },
      );
      // A good event after them: once it is handled, the poison ones have been dealt with.
      await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'good' }));

      await eventually('the good event', () => handled.includes('good'));
      const dead = await drainQueue(ch, deadLetterQueue(queue), 4);

      expect(handled).toEqual(['good']);
      expect(dead).toHaveLength(4);
      const bodies = dead.map((m) => m.content);
      expect(bodies).toContainEqual(notEnvelope);
      expect(bodies).toContainEqual(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x7b]));
      const jobIds = dead.flatMap((m) => {
        try {
          return [(JSON.parse(m.content.toString()) as Envelope<JobEventPayload>).payload.job_id];
        } catch {
          return [];
        }
      });
      expect(jobIds.sort()).toEqual(['bad-payload', 'no-envelope', 'no-handler']);
      // Dead-lettered by rejection from the work queue, so an operator can see where it came from.
      for (const m of dead) expect(m.properties.headers?.['x-first-death-queue']).toBe(queue);
      expect((await ch.checkQueue(queue)).messageCount).toBe(0);
    } finally {
      await conn.close();
    }
  });

  it('retries through the broker with attempts 1, 2, 3, then dead-letters once the delays are exhausted', async () => {
    const attempts: number[] = [];
    const { queue } = await consumer(
      async (_payload, ctx) => {
        attempts.push(ctx.attempt);
        return 'retry';
      },
      { retryDelaysMs: [200, 200] },
    );
    const jobs = await publisher();
    const payload = jobCompleted({ job_id: 'flaky' });

    await jobs.publishEvent(jobEvents.completed, payload);

    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      const [dead] = await drainQueue(ch, deadLetterQueue(queue), 1);
      expect(attempts).toEqual([1, 2, 3]);
      const env = JSON.parse(dead.content.toString()) as Envelope<JobEventPayload>;
      expect(env.payload).toEqual(payload);
      expect(dead.properties.headers?.['x-attempt']).toBe(3);
      // The original routing key travelled with the retries.
      expect(dead.properties.headers?.['x-original-routing-key']).toBe('job.completed');
      expect((await ch.checkQueue(delayQueue(queue, 200))).messageCount).toBe(0);
    } finally {
      await conn.close();
    }
  });

  it('calls a handler that asks for one retry and then acks exactly twice', async () => {
    const attempts: number[] = [];
    const { queue } = await consumer(
      async (_payload, ctx) => {
        attempts.push(ctx.attempt);
        return ctx.attempt === 1 ? 'retry' : 'ack';
      },
      { retryDelaysMs: [200, 200] },
    );
    const jobs = await publisher();

    await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'once' }));

    await eventually('the second attempt', () => attempts.length >= 2);
    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      await eventually('work and delay queues to be empty', async () => {
        const [work, delay] = await Promise.all([ch.checkQueue(queue), ch.checkQueue(delayQueue(queue, 200))]);
        return work.messageCount === 0 && delay.messageCount === 0;
      });
      // Well past another retry delay: nothing else arrives.
      await sleep(1000);
      expect(attempts).toEqual([1, 2]);
      expect((await ch.checkQueue(deadLetterQueue(queue))).messageCount).toBe(0);
    } finally {
      await conn.close();
    }
  });

  it('retries a handler that throws, as if it had returned retry', async () => {
    const attempts: number[] = [];
    await consumer(
      async (_payload, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt === 1) throw new Error('webhook endpoint unreachable');
        return 'ack';
      },
      { retryDelaysMs: [200] },
    );
    const jobs = await publisher();

    await jobs.publishEvent(jobEvents.completed, jobCompleted());

    await eventually('the retry', () => attempts.length >= 2);
    expect(attempts).toEqual([1, 2]);
  });

  it('dead-letters at once a message its handler declares dead', async () => {
    const attempts: number[] = [];
    const { queue } = await consumer(
      async (_payload, ctx) => {
        attempts.push(ctx.attempt);
        return 'dead';
      },
      { retryDelaysMs: [200, 200] },
    );
    const jobs = await publisher();

    await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'hopeless' }));

    const { conn, ch } = await rawConnection(currentVhost().url);
    try {
      const [dead] = await drainQueue(ch, deadLetterQueue(queue), 1);
      expect((JSON.parse(dead.content.toString()) as Envelope<JobEventPayload>).payload.job_id).toBe('hopeless');
      expect(attempts).toEqual([1]);
    } finally {
      await conn.close();
    }
  });

  it('on close, waits for an in-flight handler to finish and ack, so the message is not redelivered', async () => {
    const started = deferred();
    const release = deferred();
    const seen: string[] = [];
    let finishedAt = 0;
    const { bus, queue } = await consumer(async (payload) => {
      seen.push(payload.job_id);
      if (payload.job_id === 'slow') {
        started.resolve();
        await release.promise;
        finishedAt = Date.now();
      }
      return 'ack';
    });
    const jobs = await publisher();

    await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'slow' }));
    await started.promise;

    let closedAt = 0;
    const closing = bus.close().then(() => (closedAt = Date.now()));
    await sleep(300);
    expect(closedAt).toBe(0); // still waiting for the handler
    release.resolve();
    await closing;
    expect(finishedAt).toBeGreaterThan(0);
    expect(closedAt).toBeGreaterThanOrEqual(finishedAt);

    // A new consumer on the same queue gets the next message, and never the acked one again.
    const after: string[] = [];
    await consumer(
      async (payload) => {
        after.push(payload.job_id);
        return 'ack';
      },
      { queue },
    );
    await jobs.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'next' }));
    await eventually('the next event', () => after.includes('next'));
    expect(after).toEqual(['next']);
    expect(seen).toEqual(['slow']);
  });
});
