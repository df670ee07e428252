import { withFaultPoints } from './faults';
import type { Provider, ProviderJob } from './providers/provider';

const job: ProviderJob = {
  jobId: 'job_1',
  type: 'image',
  modelId: 'imagegen-2',
  mode: 'text-to-image',
  attempt: 1,
  upstreamModel: 'imagegen/v2',
  params: { prompt: 'p' } as never,
};

function recordingProvider(calls: string[]): Provider {
  return {
    name: 'local',
    type: 'local',
    submit: async () => (calls.push('submit'), { requestId: 'req_1' }),
    status: async () => (calls.push('status'), { state: 'running' }),
    cancel: async () => void calls.push('cancel'),
    release: async () => void calls.push('release'),
  };
}

describe('withFaultPoints', () => {
  it('leaves the provider untouched when no fault point is set', () => {
    const provider = recordingProvider([]);

    expect(withFaultPoints(provider, [], () => undefined)).toBe(provider);
  });

  it('with after-charge, dies when a submit reaches the provider, before the provider is asked', async () => {
    const calls: string[] = [];
    const faulty = withFaultPoints(recordingProvider(calls), ['after-charge'], (point) => {
      calls.push(`die:${point}`);
    });

    await faulty.submit(job);

    expect(calls).toEqual(['die:after-charge', 'submit']);
  });

  it('with after-charge, passes everything else straight through', async () => {
    const calls: string[] = [];
    const die = jest.fn();
    const faulty = withFaultPoints(recordingProvider(calls), ['after-charge'], die);

    await expect(faulty.status('req_1', job)).resolves.toEqual({ state: 'running' });
    await faulty.cancel('req_1', job);
    await faulty.release?.('req_1');

    expect(faulty.name).toBe('local');
    expect(calls).toEqual(['status', 'cancel', 'release']);
    expect(die).not.toHaveBeenCalled();
  });
});
