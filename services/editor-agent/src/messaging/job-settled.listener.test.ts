import { JobSettledListener } from './job-settled.listener';

describe('JobSettledListener', () => {
  it('wakes a wait when its job ends, and answers at once for a job that ended before the wait began', async () => {
    const listener = new JobSettledListener();
    let woke = false;
    const waiting = listener.wait('job_a', 60_000).then(() => (woke = true));
    listener.ended('job_b');
    await Promise.resolve();
    expect(woke).toBe(false);
    listener.ended('job_a');
    await waiting;
    expect(woke).toBe(true);
    await expect(listener.wait('job_b', 60_000)).resolves.toBeUndefined();
  });

  it('ends a wait after its safety-net interval when no event comes', async () => {
    const listener = new JobSettledListener(5);
    await expect(listener.wait('job_never', 60_000)).resolves.toBeUndefined();
  });
});
