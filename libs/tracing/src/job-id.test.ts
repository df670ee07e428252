import { jobIdOf } from './job-id';

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('jobIdOf', () => {
  it("reads a job event's payload and a submit reply's result", () => {
    expect(jobIdOf(json({ type: 'job.completed', payload: { job_id: 'job_1' } }))).toBe('job_1');
    expect(jobIdOf(json({ ok: true, result: { job_id: 'job_2', status: 'processing' } }))).toBe('job_2');
  });

  it('finds nothing in other messages, malformed ones and very large ones', () => {
    expect(jobIdOf(json({ type: 'billing.charge', payload: { user_id: 1 } }))).toBeUndefined();
    expect(jobIdOf(Buffer.from('not json'))).toBeUndefined();
    expect(jobIdOf(json({ payload: { job_id: 7 } }))).toBeUndefined();
    expect(jobIdOf(json({ payload: { job_id: 'job_3', pad: 'x'.repeat(70_000) } }))).toBeUndefined();
  });
});
