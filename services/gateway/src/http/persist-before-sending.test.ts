import express from 'express';
import request from 'supertest';
import { persistBeforeSending, type PersistHooks } from './persist-before-sending';

/** An app whose one route answers through persistBeforeSending with the given hooks. */
function appWith(hooks: Partial<PersistHooks>, answer: (res: express.Response) => void) {
  const app = express();
  app.post('/x', (_req, res) => {
    persistBeforeSending(res, {
      persist: async () => undefined,
      onError: () => undefined,
      onUncaptured: () => undefined,
      ...hooks,
    });
    answer(res);
  });
  return app;
}

describe('persistBeforeSending', () => {
  it('hands the status and body to persist, and sends only once persist has finished', async () => {
    const events: string[] = [];
    const app = appWith(
      {
        persist: async (status, body) => {
          events.push(`persist ${status} ${JSON.stringify(body)}`);
          await new Promise((r) => setImmediate(r));
          events.push('persisted');
        },
      },
      (res) => res.status(202).json({ job_id: 'job_1' }),
    );
    const res = await request(app).post('/x');
    events.push('received');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: 'job_1' });
    expect(events).toEqual(['persist 202 {"job_id":"job_1"}', 'persisted', 'received']);
  });

  it('still sends the answer when it could not be stored, and reports the failure', async () => {
    const errors: unknown[] = [];
    const app = appWith(
      { persist: () => Promise.reject(new Error('db down')), onError: (e) => errors.push(e) },
      (res) => res.status(200).json({ ok: true }),
    );
    const res = await request(app).post('/x');
    expect([res.status, res.body]).toEqual([200, { ok: true }]);
    expect(errors).toEqual([new Error('db down')]);
  });

  it('reports a response that finished without res.json (nothing to store)', async () => {
    let uncaptured = 0;
    const app = appWith({ onUncaptured: () => uncaptured++ }, (res) => res.status(204).end());
    await request(app).post('/x').expect(204);
    expect(uncaptured).toBe(1);
  });
});
