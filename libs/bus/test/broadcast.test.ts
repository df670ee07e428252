import { jobEvents, ROUTING_KEYS } from '@mf/contracts';
import { eventually, jobCompleted, killAndAwaitReconnect, TEST_TIMEOUT_MS, useVhostAndBuses } from './support';

jest.setTimeout(TEST_TIMEOUT_MS * 2);

describe('Bus.subscribe (every process gets every event)', () => {
  const { vhost, pool } = useVhostAndBuses();

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

  it('tells the subscriber each time its queue is consumed: at start and again after a reconnect', async () => {
    const received: string[] = [];
    let subscribed = 0;
    const bus = pool.create('gateway', { reconnectMinMs: 100 });
    await bus.subscribe({
      bindings: [ROUTING_KEYS.jobAll],
      handle: (_key, payload) => received.push((payload as { job_id: string }).job_id),
      onSubscribed: () => subscribed++,
    });
    await bus.start();
    expect(subscribed).toBe(1);

    await killAndAwaitReconnect(bus, vhost(), 'gateway');
    await eventually('the queue consumed again', () => subscribed === 2);
    const publisher = pool.create('jobs');
    await publisher.start();
    await publisher.publishEvent(jobEvents.completed, jobCompleted({ job_id: 'job_afterReconnect' }));
    await eventually('the event after the reconnect', () => received.includes('job_afterReconnect'));
    expect(subscribed).toBe(2);
  });
});
