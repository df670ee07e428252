import type { JobEventPayload } from './generated/types';
import { webhookBody } from './webhook-body';

const payload: JobEventPayload = {
  // Deliberately not in body order: the body must put the keys in the contract's order anyway.
  error: null,
  result: { video: 'https://media.test/media/j1.mp4' },
  completed_at: '2025-01-02T03:04:06.000Z',
  created_at: '2025-01-02T03:04:05.000Z',
  credits_consumed: 120,
  type: 'video',
  upstream_model: 'fal-ai/vidgen-2/text-to-video',
  model_id: 'vidgen-2.0',
  status: 'completed',
  api_key_id: 7,
  user_id: 3,
  job_id: 'j1',
};

describe('webhookBody', () => {
  it('has the contract keys in order, with the upstream endpoint path as model', () => {
    const body = webhookBody(payload);
    expect(Object.keys(JSON.parse(body))).toEqual([
      'job_id',
      'status',
      'model',
      'type',
      'credits_consumed',
      'created_at',
      'completed_at',
      'result',
      'error',
      'source',
      'project_id',
    ]);
    expect(JSON.parse(body)).toMatchObject({
      model: 'fal-ai/vidgen-2/text-to-video',
      result: { video: 'https://media.test/media/j1.mp4' },
    });
  });

  it('marks who made the job after the contract keys: an editor job names its project, an event of before the fields is an api job', () => {
    expect(JSON.parse(webhookBody({ ...payload, source: 'editor', project_id: 'prj_abc' }))).toMatchObject({
      source: 'editor',
      project_id: 'prj_abc',
    });
    expect(JSON.parse(webhookBody(payload))).toMatchObject({ source: 'api', project_id: null });
  });

  it('leaves out what only we need (user, key, model id)', () => {
    expect(webhookBody(payload)).not.toMatch(/user_id|api_key_id|model_id/);
  });
});
