import { jobEvents, ROUTING_KEYS, type JobEventPayload } from '@mf/contracts';
import type { AnyEventHandler, ConsumerSpec } from '../src';
import { eventually, jobCompleted, sleep, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

describe('Bus.consume bindings', () => {
  const { pool } = useVhostAndBuses();

  it('drops a binding an earlier version of the consumer made, so what only it matched is no longer routed to the queue', async () => {
    const queue = 'test.bindings.narrowed';
    const seen: string[] = [];
    const record: AnyEventHandler['handle'] = (payload) => {
      seen.push((payload as JobEventPayload).status);
      return Promise.resolve('ack');
    };
    const handlers: ConsumerSpec['handlers'] = {
      [ROUTING_KEYS.jobCompleted]: { def: jobEvents.completed, handle: record },
      [ROUTING_KEYS.jobProcessing]: { def: jobEvents.processing, handle: record },
    };
    // The earlier version: bound to every job event.
    const before = pool.create('billing');
    void before.consume({ queue, bindings: [ROUTING_KEYS.jobAll], handlers });
    await before.start();
    await before.close(5000);

    const after = pool.create('billing');
    void after.consume({ queue, bindings: [ROUTING_KEYS.jobCompleted], unbind: [ROUTING_KEYS.jobAll], handlers });
    await after.start();
    const jobs = pool.create('jobs');
    await jobs.start();
    // Published in this order on one channel: a processing event routed to the queue would be delivered first.
    await jobs.publishEvent(jobEvents.processing, jobCompleted({ status: 'processing', completed_at: null }));
    await jobs.publishEvent(jobEvents.completed, jobCompleted());

    await eventually('the completed event to be handled', () => seen.includes('completed'));
    await sleep(100);
    expect(seen).toEqual(['completed']);
  });
});
