import { DEFAULT_FAL_ENDPOINTS } from '@mf/catalog';
import { jobEventSchema, jobView, WEBHOOK_TEST_TYPES } from '@mf/contracts';
import { sampleJobEvent } from '../usecases/webhook-samples';
import { sampleJobView } from './trigger-event.usecase';

describe('the Job object of a triggered sample', () => {
  it.each(WEBHOOK_TEST_TYPES)('is a valid Job for %s, in the sample’s status, and makes a valid job event', (type) => {
    const payload = { ...sampleJobEvent(type, 'https://api.example.com', DEFAULT_FAL_ENDPOINTS), user_id: 7 };
    const job = sampleJobView(payload);
    expect(jobView.validate(job, { convert: false }).error).toBeUndefined();
    expect(job).toMatchObject({ job_id: payload.job_id, status: payload.status, model: 'VidGen 2.0', source: 'api' });
    expect(job.progress).toBe(type === 'job.completed' ? 100 : null);
    expect(jobEventSchema.validate({ ...payload, job, test: true }, { convert: false }).error).toBeUndefined();
  });
});
