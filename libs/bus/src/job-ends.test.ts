import { jobEvents, ROUTING_KEYS, type JobEventPayload } from '@mf/contracts';
import { jobEndsConsumer } from './job-ends';
import type { ConsumerContext } from './types';

const ctx = {} as ConsumerContext; // the handlers here only pass it on
const payload = { job_id: 'job_a' } as JobEventPayload;

describe('a consumer of the job ends', () => {
  const seen: string[] = [];
  const spec = jobEndsConsumer({
    queue: 'test.ends',
    handle: (_payload, _ctx, event) => {
      seen.push(event);
      return Promise.resolve('retry');
    },
    prefetch: 4,
    retryDelaysMs: [10],
  });

  it('binds the three ends and removes the binding to every job event an earlier version made', () => {
    expect(spec).toMatchObject({ queue: 'test.ends', prefetch: 4, retryDelaysMs: [10] });
    expect(spec.bindings).toEqual(['job.completed', 'job.failed', 'job.cancelled']);
    expect(spec.unbind).toEqual([ROUTING_KEYS.jobAll]);
  });

  it('hands each end to the handler with its name and its outcome back to the bus', async () => {
    for (const def of [jobEvents.completed, jobEvents.failed, jobEvents.cancelled])
      await expect(spec.handlers[def.routingKey].handle(payload as never, ctx)).resolves.toBe('retry');
    expect(seen.splice(0)).toEqual(['job.completed', 'job.failed', 'job.cancelled']);
  });

  it('acks a processing or progress event still queued from the old binding without handling it', async () => {
    for (const def of [jobEvents.processing, jobEvents.progress])
      await expect(spec.handlers[def.routingKey].handle(payload as never, ctx)).resolves.toBe('ack');
    expect(seen).toEqual([]);
  });
});
