import express from 'express';
import request from 'supertest';
import type { Bus } from '@mf/bus';
import { providerCallbackRoutes } from './provider-callback.routes';

/** Records the providerCallback RPCs the route makes. */
function recordingBus() {
  const calls: Record<string, unknown>[] = [];
  const bus = {
    rpc: async (_service: unknown, _method: string, req: Record<string, unknown>) => (
      calls.push(req),
      { accepted: true }
    ),
  };
  // Only `rpc` is used by the route.
  return { bus: bus as unknown as Bus, calls };
}

describe('provider callback route', () => {
  const body = '{"type":"video.generation.completed","data":{"id":"vid-1","status":"completed"}}';

  it('forwards the raw body with the Standard Webhooks headers (Replicate)', async () => {
    const { bus, calls } = recordingBus();
    const res = await request(express().use(providerCallbackRoutes(bus)))
      .post('/api/providers/callback/job_abc?token=t&attempt=2')
      .set({
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc',
      })
      .send(body);
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        job_id: 'job_abc',
        token: 't',
        attempt: 2,
        webhook: {
          headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' },
          body,
        },
      },
    ]);
  });

  it('forwards the raw body with X-OpenRouter-Signature (OpenRouter)', async () => {
    const { bus, calls } = recordingBus();
    await request(express().use(providerCallbackRoutes(bus)))
      .post('/api/providers/callback/job_abc?token=t&attempt=1')
      .set({
        'content-type': 'application/json',
        'X-OpenRouter-Signature': 't=1700000000,v1=00ff',
        'X-OpenRouter-Idempotency-Key': 'k',
      })
      .send(body);
    expect(calls).toEqual([
      {
        job_id: 'job_abc',
        token: 't',
        attempt: 1,
        webhook: { headers: { 'x-openrouter-signature': 't=1700000000,v1=00ff' }, body },
      },
    ]);
  });

  it('sends no body when no signature scheme is complete, and nothing for a malformed job id', async () => {
    const { bus, calls } = recordingBus();
    const app = express().use(providerCallbackRoutes(bus));
    await request(app).post('/api/providers/callback/job_abc?token=t').set({ 'webhook-id': 'msg_1' }).send(body);
    await request(app).post('/api/providers/callback/not-a-job?token=t').send(body);
    expect(calls).toEqual([{ job_id: 'job_abc', token: 't' }]);
  });
});
