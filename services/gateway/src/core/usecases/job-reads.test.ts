import type { Bus } from '@mf/bus';
import { JOB_REFS_MAX, type Job, type JobRef } from '@mf/contracts';
import { AppError } from '@mf/errors';
import { JobReads } from './job-reads';

interface Call {
  method: string;
  request: unknown;
  opts: { correlationId?: string } | undefined;
}

const view = (id: string): Job => ({ job_id: id, status: 'processing' }) as Job; // only the id matters to the batching

/**
 * A bus whose jobs service owns the jobs in `owned` (job id -> user id) and records each call;
 * `failMany`: every jobs.get-many call fails with it.
 */
function fakeBus(owned: Record<string, number>, failMany?: Error): { bus: Bus; calls: Call[] } {
  const calls: Call[] = [];
  const find = (ref: JobRef) => (owned[ref.job_id] === ref.user_id ? view(ref.job_id) : null);
  const rpc = (_service: unknown, method: string, request: unknown, opts?: { correlationId?: string }) => {
    calls.push({ method, request, opts });
    if (failMany && method === 'getMany') return Promise.reject(failMany);
    if (method === 'getMany') return Promise.resolve({ jobs: (request as { refs: JobRef[] }).refs.map(find) });
    const job = find(request as JobRef);
    return job ? Promise.resolve(job) : Promise.reject(AppError.notFound('Job not found'));
  };
  return { bus: { rpc } as unknown as Bus, calls };
}

describe('reading jobs in batches', () => {
  it('sends a read alone as jobs.get with its correlation id', async () => {
    const { bus, calls } = fakeBus({ job_a: 1 });
    await expect(new JobReads(bus).read({ user_id: 1, job_id: 'job_a' }, { correlationId: 'req-1' })).resolves.toEqual(
      view('job_a'),
    );
    expect(calls).toEqual([
      { method: 'get', request: { user_id: 1, job_id: 'job_a' }, opts: { correlationId: 'req-1' } },
    ]);
  });

  it("sends reads made together as one jobs.get-many, each reader getting its job or jobs.get's 404", async () => {
    const { bus, calls } = fakeBus({ job_a: 1, job_b: 2 });
    const reads = new JobReads(bus);
    const results = await Promise.allSettled([
      reads.read({ user_id: 1, job_id: 'job_a' }),
      reads.read({ user_id: 2, job_id: 'job_b' }),
      reads.read({ user_id: 2, job_id: 'job_a' }),
      reads.read({ user_id: 1, job_id: 'job_a' }),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.job_id : r.reason))).toEqual([
      'job_a',
      'job_b',
      AppError.notFound('Job not found'),
      'job_a',
    ]);
    const rejected = results[2] as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(AppError);
    expect([(rejected.reason as AppError).kind, (rejected.reason as AppError).body]).toEqual([
      'not_found',
      { error: 'Job not found' },
    ]);
    // The same job read twice by the same user is asked for once.
    expect(calls.map((c) => [c.method, c.request])).toEqual([
      [
        'getMany',
        {
          refs: [
            { user_id: 1, job_id: 'job_a' },
            { user_id: 2, job_id: 'job_b' },
            { user_id: 2, job_id: 'job_a' },
          ],
        },
      ],
    ]);
  });

  it('splits a batch larger than one message may carry', async () => {
    const owned = Object.fromEntries(Array.from({ length: JOB_REFS_MAX + 1 }, (_, i) => [`job_${i}`, 1]));
    const { bus, calls } = fakeBus(owned);
    const reads = new JobReads(bus);
    const jobs = await Promise.all(Object.keys(owned).map((id) => reads.read({ user_id: 1, job_id: id })));
    expect(jobs.map((j) => j.job_id)).toEqual(Object.keys(owned));
    expect(calls.map((c) => c.method)).toEqual(['getMany', 'get']);
    expect((calls[0].request as { refs: unknown[] }).refs).toHaveLength(JOB_REFS_MAX);
  });

  it('reads one by one when jobs answers jobs.get-many with an internal error (an older jobs mid-upgrade)', async () => {
    // What an RPC server that does not know the method replies: the internal error's wire form.
    const { bus, calls } = fakeBus({ job_a: 1, job_b: 1 }, AppError.internal());
    const reads = new JobReads(bus);
    const results = await Promise.allSettled([
      reads.read({ user_id: 1, job_id: 'job_a' }, { correlationId: 'req-a' }),
      reads.read({ user_id: 1, job_id: 'job_b' }),
      reads.read({ user_id: 2, job_id: 'job_a' }),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.job_id : r.reason))).toEqual([
      'job_a',
      'job_b',
      AppError.notFound('Job not found'),
    ]);
    expect(calls.map((c) => [c.method, c.opts?.correlationId])).toEqual([
      ['getMany', undefined],
      ['get', 'req-a'],
      ['get', undefined],
      ['get', undefined],
    ]);
  });

  it('fails every reader of a batch whose jobs.get-many timed out or found no broker, without reading one by one', async () => {
    const unavailable = AppError.unavailable();
    const { bus, calls } = fakeBus({ job_a: 1, job_b: 1 }, unavailable);
    const reads = new JobReads(bus);
    const results = await Promise.allSettled([
      reads.read({ user_id: 1, job_id: 'job_a' }),
      reads.read({ user_id: 1, job_id: 'job_b' }),
    ]);
    expect(results).toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
    expect(calls.map((c) => c.method)).toEqual(['getMany']);
  });
});
