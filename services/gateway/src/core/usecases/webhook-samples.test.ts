import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { jobEventSchema } from '@mf/contracts';
import { sampleJobEvent } from './webhook-samples';

describe('sample job events for webhook tests', () => {
  const now = new Date('2026-01-02T03:04:05.000Z');

  it.each([
    ['job.completed', 'completed'],
    ['job.failed', 'failed'],
    ['job.cancelled', 'cancelled'],
  ] as const)('makes a %s sample with status %s in the shape of a real job event', (type, status) => {
    const sample = sampleJobEvent(type, 'https://api.example.com/', DEFAULT_FAL_ENDPOINTS, now);
    expect(jobEventSchema.validate(sample).error).toBeUndefined();
    expect(sample.status).toBe(status);
    expect(sample.job_id).toMatch(/^job_test[A-Za-z0-9]{16}$/);
    expect(sample.completed_at).toBe(now.toISOString());
  });

  it('gives only a completed sample a result, and only a failed one an error', () => {
    const [completed, failed, cancelled] = (['job.completed', 'job.failed', 'job.cancelled'] as const).map((t) =>
      sampleJobEvent(t, 'https://api.example.com', DEFAULT_FAL_ENDPOINTS, now),
    );
    expect(completed.result).toEqual({
      video: expect.stringMatching(/^https:\/\/api\.example\.com\/media\/jobs\/job_test/),
    });
    expect(completed.error).toBeNull();
    expect(failed).toMatchObject({ result: null, error: expect.any(String) });
    expect(cancelled).toMatchObject({ result: null, error: null });
  });
});
