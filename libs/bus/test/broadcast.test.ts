import { jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { eventually, jobCompleted, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS);

describe('Bus.subscribe (every process gets every event)', () => {
  const { pool } = useVhostAndBuses();

  it('delivers each event to every subscribed process, each on a queue of its own', async () => {
    const seen: Array<Array<[string, unknown]>> = [[], []];
    for (const received of seen) {
      const bus = pool.create('gateway');
      await bus.subscribe({ bindings: [ROUTING_KEYS.jobAll], handle: (key, payload) => received.push([key, payload]) });
      await bus.start();
    }
    const publisher = pool.create('jobs');
    await publisher.start();
    const payload = jobCompleted({ job_id: 'job_fanout1' });
    await publisher.publishEvent(jobEvents.completed, payload);

    for (const received of seen) {
      await eventually('both replicas received the event', () => received.length === 1);
      expect(received[0]).toEqual([ROUTING_KEYS.jobCompleted, payload]);
    }
  });
});
