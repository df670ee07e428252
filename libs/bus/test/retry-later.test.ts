import {
  deadLetterQueue,
  EXCHANGES,
  jobEvents,
  ROUTING_KEYS,
  type Envelope,
  type JobEventPayload,
} from '@mf/contracts';
import type { HeldMessage } from '../src';
import { encode, envelope } from '../src/codec';
import { drainQueue, eventually, jobCompleted, rawConnection, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

/** A handler that acks at once and keeps the message (a pending set would), then hands it back to the broker. */
describe('Bus.retryLater', () => {
  const { vhost, pool } = useVhostAndBuses();

  it('puts a message taken over back on its retry schedule with the next attempt, then into the DLQ once the delays are exhausted', async () => {
    const queue = 'test.taken-over';
    const held: HeldMessage[] = [];
    const bus = pool.create('webhooks');
    void bus.consume({
      queue,
      bindings: [ROUTING_KEYS.jobCompleted],
      handlers: {
        [ROUTING_KEYS.jobCompleted]: {
          def: jobEvents.completed,
          handle: async (_payload: JobEventPayload, ctx) => {
            held.push(ctx.message);
            return 'ack';
          },
        },
      },
      retryDelaysMs: [100],
    });
    await bus.start();
    const payload = jobCompleted({ job_id: 'job_later' });
    const { conn, ch } = await rawConnection(vhost().url);
    try {
      // Published as the relay does, with a trace header that must travel with every retry.
      const body = envelope(jobEvents.completed.routingKey, 1, payload, { messageId: 'msg-later' });
      ch.publish(EXCHANGES.events, ROUTING_KEYS.jobCompleted, encode(body), {
        persistent: true,
        messageId: 'msg-later',
        headers: { traceparent: '00-abc-def-01' },
      });
      await eventually('the first delivery', () => held.length === 1);
      expect(held[0]).toMatchObject({
        queue,
        routingKey: 'job.completed',
        attempt: 1,
        messageId: 'msg-later',
        headers: { traceparent: '00-abc-def-01' },
      });
      // The held form is plain JSON: it survives a round trip through a database column.
      const stored = JSON.parse(JSON.stringify(held[0])) as HeldMessage;

      await expect(bus.retryLater(stored, [100])).resolves.toBe('scheduled');
      await eventually('the retry, back from the delay queue', () => held.length === 2);
      expect(held[1]).toMatchObject({
        routingKey: 'job.completed',
        attempt: 2,
        messageId: 'msg-later',
        headers: { traceparent: '00-abc-def-01' },
      });
      expect((JSON.parse(held[1].content) as Envelope<JobEventPayload>).payload).toEqual(payload);

      await expect(bus.retryLater(held[1], [100])).resolves.toBe('dead-lettered');
      const [dead] = await drainQueue(ch, deadLetterQueue(queue), 1);
      expect((JSON.parse(dead.content.toString()) as Envelope<JobEventPayload>).payload).toEqual(payload);
      expect(dead.properties.headers).toMatchObject({ 'x-attempt': 2, 'x-original-routing-key': 'job.completed' });
      expect(held).toHaveLength(2);
    } finally {
      await conn.close();
    }
  });
});
