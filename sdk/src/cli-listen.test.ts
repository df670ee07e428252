import { Webhook } from 'standardwebhooks';
import type { MediaforgeClient } from './client';
import { forwardedBody, forwardedHeaders, sessionSecret } from './cli-listen';
import type { EventsPage, JobEvent } from './types';
import { verifyWebhook } from './webhooks';

const job = {
  job_id: 'job_a',
  status: 'completed',
  model: 'Vidgen 2.0',
  type: 'video',
  credits_consumed: 10,
  created_at: '2025-01-02T03:04:05.000Z',
  completed_at: '2025-01-02T03:04:06.000Z',
  result: { video: 'https://media.test/a.mp4' },
  error: null,
  input: {},
  source: 'api',
  project_id: null,
  progress: 100,
} as unknown as JobEvent['data']; // only the fields listen reads matter here
const deliveryBody = '{"job_id":"job_a","status":"completed","model":"fal-ai/vidgen-2/text-to-video"}';

/** A client whose event log holds one terminal event with its delivery body; records the page asked for. */
function clientWithLog(asked: unknown[]): MediaforgeClient {
  const page: EventsPage = {
    events: [
      {
        id: 'evt_0000000000000042',
        type: 'job.completed',
        created_at: job.completed_at as string,
        job_id: 'job_a',
        data: job,
        webhook_body: deliveryBody,
      },
    ],
    next_cursor: null,
  };
  const events = { list: (params: unknown) => (asked.push(params), Promise.resolve(page)) };
  return { events } as unknown as MediaforgeClient;
}

describe('what listen forwards', () => {
  it('sends a terminal event with the body its delivery carries, read from the event log at that event', async () => {
    const asked: unknown[] = [];
    const body = await forwardedBody(clientWithLog(asked), {
      id: 'evt_0000000000000042',
      type: 'job.completed',
      data: job,
    });
    expect(body).toEqual({ body: deliveryBody, test: false });
    expect(asked).toEqual([{ after: 'evt_0000000000000041', limit: 1 }]);
  });

  it('sends a listen-only event with the Job object as the stream shows it', async () => {
    const e: JobEvent = { id: 'evt_0000000000000040', type: 'job.processing', data: { ...job, status: 'processing' } };
    expect(JSON.parse((await forwardedBody(clientWithLog([]), e)).body)).toMatchObject({
      job_id: 'job_a',
      status: 'processing',
    });
  });

  it('carries the delivery headers, signed so verifyWebhook accepts it with the session secret', () => {
    const e: JobEvent = { id: 'evt_0000000000000042', type: 'job.completed', data: job };
    const headers = forwardedHeaders(e, deliveryBody, 'whsec_test', 1_700_000_000);
    expect(headers).toMatchObject({
      'User-Agent': 'Mediaforge-Webhooks/1.0',
      'X-Service-Event': 'job.completed',
      'X-Service-Event-Id': 'evt_0000000000000042',
      'X-Service-Delivery-Attempt': '1',
    });
    const verified = verifyWebhook({ payload: deliveryBody, headers, secret: 'whsec_test', now: 1_700_000_000_000 });
    expect(verified).toMatchObject({ type: 'job.completed', id: 'evt_0000000000000042', attempt: 1 });
  });

  it('signs with Standard Webhooks headers under --signature-scheme standard, verified by the standardwebhooks package', () => {
    const e: JobEvent = { id: 'evt_0000000000000042', type: 'job.completed', data: job };
    const secret = sessionSecret('standard');
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = forwardedHeaders(e, deliveryBody, secret, timestamp, 'standard');
    expect(headers).toMatchObject({
      'User-Agent': 'Mediaforge-Webhooks/1.0',
      'X-Service-Event': 'job.completed',
      'X-Service-Event-Id': 'evt_0000000000000042',
      'X-Service-Delivery-Attempt': '1',
      'webhook-id': 'evt_0000000000000042',
      'webhook-timestamp': String(timestamp),
    });
    expect(headers).not.toHaveProperty('X-Service-Signature');
    expect(new Webhook(secret).verify(deliveryBody, headers)).toEqual(JSON.parse(deliveryBody));
    expect(() => new Webhook(sessionSecret('standard')).verify(deliveryBody, headers)).toThrow();
  });
});
