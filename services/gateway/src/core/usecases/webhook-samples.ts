import type { FalEndpoints } from '@mf/catalog';
import type { JobEventPayload, WebhookTestType } from '@mf/contracts';
import { sampleCompletedJob } from './webhooks.usecase';

/**
 * A sample of each job event in the exact shape of a real one (model, price, URLs as this
 * installation makes them), for a receiver to be tried on. Its id starts `job_test` and names no
 * job. A failed job has its error and no result; a cancelled one neither.
 */
export function sampleJobEvent(
  type: WebhookTestType,
  publicBaseUrl: string,
  falEndpoints: FalEndpoints,
  now = new Date(),
): JobEventPayload {
  const completed = sampleCompletedJob(publicBaseUrl, falEndpoints, now);
  if (type === 'job.completed') return completed;
  if (type === 'job.failed')
    return { ...completed, status: 'failed', result: null, error: 'No provider could take the job' };
  return { ...completed, status: 'cancelled', result: null };
}
